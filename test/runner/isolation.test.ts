import { chmod, copyFile, link, mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type BashRunner,
  createBashRunner,
  DEV_SHM_BYTES,
  describeIsolation,
  type IsolationLevel,
  MINIMAL_PATH,
  RUNNER_USER,
  RunnerStartError,
} from '../../src/runner/index.js';
import { availableLevels, escapeThenReport, isRoot, survivorsAfter, tempBase, use } from './helpers.js';

const probeDir = await mkdtemp(join(tmpdir(), 'wirecheck-runner-probe-'));
const LEVELS = await availableLevels(join(probeDir, 'wd'));
await rm(probeDir, { recursive: true, force: true });

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const FILE_LIMIT = 1024 * 1024;

/** Unix socket servers on the host, in the places sockets live, that anyone may connect to. */
const hostSockets: string[] = [];
for (const parent of ['/run', '/tmp', '/var/tmp']) {
  const dir = await mkdtemp(join(parent, 'wirecheck-socket-'));
  await chmod(dir, 0o755);
  const path = join(dir, 'listening.sock');
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(path, resolve));
  await chmod(path, 0o777);
  hostSockets.push(path);
  cleanup.push(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
}
// Reachable from the host itself: a socket the sandbox cannot reach is not a broken one.
for (const path of hostSockets) {
  await new Promise<void>((resolve, reject) => connect(path, resolve).on('error', reject).end());
}
const NAMESPACED: readonly IsolationLevel[] = ['bwrap', 'util-linux'];

test('the isolation level "none" is always available, so every rule is checked somewhere', () => {
  expect(LEVELS).toContain('none');
});

describe.each(LEVELS)('isolation %s', (level) => {
  let runner: BashRunner;
  let workdir: string;
  const run = async (command: string) => (await runner.run(use(command))).result.content;
  const namespaced = NAMESPACED.includes(level);

  beforeAll(async () => {
    workdir = join(await tempBase(cleanup), 'wd');
    runner = await createBashRunner({
      workdir,
      isolation: level,
      timeoutS: 10,
      limits: { processes: 256, openFiles: 512, fileSizeBytes: FILE_LIMIT },
    });
    cleanup.push(() => runner.close());
  });

  test('the level in force is the one reported, in every result and in the description', async () => {
    expect(runner.isolation.level).toBe(level);
    expect((await runner.run(use('true'))).isolation).toBe(level);
    expect(describeIsolation(runner.isolation)).toContain(`isolation ${level}`);
  });

  test('the command is not root and nothing outside the working directory is writable', async () => {
    expect(await run('id -u')).not.toBe('0\n');
    expect(await run('touch /etc/wirecheck-x 2>/dev/null && echo wrote || echo refused')).toBe('refused\n');
    expect(await run('touch /usr/wirecheck-x 2>/dev/null && echo wrote || echo refused')).toBe('refused\n');
    expect(await run('touch here && echo wrote')).toBe('wrote\n');
  });

  test('resource limits: processes, open files, file size, no core dumps', async () => {
    expect(await run('ulimit -u; ulimit -n; ulimit -f; ulimit -c')).toBe(
      `256\n512\n${FILE_LIMIT / 1024}\n0\n`,
    );
    const report = await runner.run(use('head -c 2M /dev/zero > big'));
    expect(report.exitCode).toBe(153); // SIGXFSZ
  });

  test('the environment is exactly PATH, HOME and USER, with what bash adds itself', async () => {
    const env = Object.fromEntries(
      (await run('env -0'))
        .split('\0')
        .filter((entry) => entry !== '')
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({ PATH: MINIMAL_PATH, HOME: workdir, USER: RUNNER_USER, PWD: workdir });
    expect(Object.keys(env).sort()).toEqual(['HOME', 'PATH', 'PWD', 'SHLVL', 'USER', '_']);
  });

  test('no new privileges can be gained (setuid programs do not elevate)', async () => {
    expect(await run('grep NoNewPrivs /proc/self/status')).toMatch(/NoNewPrivs:\s+1/);
  });

  test("a command killed by a signal shows no shell's job report (Killed) as its output", async () => {
    const report = await runner.run(use('kill -9 $$'));
    expect(report.exitCode).toBe(137);
    expect(report.result.content).toBe('(no output was produced; exit code 137)');
  });

  test('a process that escaped with setsid does not outlive its command', async () => {
    const report = await runner.run(use(`${escapeThenReport('296.75')}; echo started`));
    expect(report.result.content).toBe('started\n');
    expect(await survivorsAfter('296.75')).toEqual([]);
  });

  test('a command can write to /dev/stdout and /dev/stderr: they reopen the same streams', async () => {
    expect(await run('echo one > /dev/stdout; echo two >> /dev/stdout; echo three > /dev/stderr')).toBe(
      'one\ntwo\n\n--- STDERR ---\nthree\n',
    );
  });

  test("each command's output streams are its own: a stream's path cannot be found afterwards", async () => {
    const path = await run('readlink /proc/self/fd/1');
    expect(path).toMatch(/\(deleted\)\n$/);
    expect(await run('echo later')).toBe('later\n');
  });

  if (namespaced) {
    test('the root file system is read-only, /tmp is private and bounded', async () => {
      expect(await run('touch /wirecheck-x 2>&1 | grep -c "Read-only file system"')).toBe('1\n');
      const name = `wirecheck-private-${level}-${process.pid}`;
      expect(await run(`echo x > /tmp/${name} && echo written`)).toBe('written\n');
      expect(await readdir(tmpdir())).not.toContain(name);
      expect(await run('df -B1 --output=size /tmp | tail -n 1 | tr -d " "')).toBe(`${64 * 1024 * 1024}\n`);
    });

    test('there is no network but loopback', async () => {
      expect(await run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")).toBe('lo\n');
    });

    test('the command has its own PID namespace: the runner and the host processes are invisible', async () => {
      const count = Number(await run("ls /proc | grep -c '^[0-9]'"));
      expect(count).toBeLessThan(10);
      expect(await run(`kill -0 ${process.pid} 2>/dev/null && echo seen || echo unseen`)).toBe('unseen\n');
    });

    test('no Unix socket of the host is reachable: servers under /run, /tmp and /var/tmp are out of reach', async () => {
      const node = join(workdir, 'wirecheck-node');
      try {
        await link(process.execPath, node);
      } catch {
        await copyFile(process.execPath, node);
      }
      await chmod(node, 0o755);
      try {
        for (const socket of hostSockets) {
          const said = await run(
            `./wirecheck-node -e "require('net').connect(process.argv[1]).on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.log(e.code); process.exit(0) })" ${socket}`,
          );
          expect(said, socket).not.toBe('connected\n');
          expect(said, socket).toMatch(/^(EPERM|EACCES|ENOENT)\n$/);
        }
        // The same client reaches the same sockets from outside: the test itself proves something.
        expect(hostSockets.length).toBe(3);
      } finally {
        await rm(node, { force: true });
      }
    });

    test('every tmpfs the command can write is bounded: /dev is read-only and /dev/shm has a size', async () => {
      expect(await run('touch /dev/wirecheck-x 2>/dev/null && echo wrote || echo refused')).toBe('refused\n');
      expect(await run('df -B1 --output=size /dev/shm | tail -n 1 | tr -d " "')).toBe(`${DEV_SHM_BYTES}\n`);
      expect(await run('head -c 20M /dev/zero > /dev/shm/fill 2>/dev/null; echo $?')).not.toBe('0\n');
      expect(await run('echo x > /dev/null && head -c 4 /dev/urandom | wc -c')).toBe('4\n');
    });

    if (level === 'util-linux') {
      test('every mount of the util-linux sandbox has the flags it is built with', async () => {
        const table = await run("cut -d' ' -f5,6 /proc/self/mountinfo");
        const flags = new Map(
          table
            .trim()
            .split('\n')
            .map((line) => {
              const [point = '', options = ''] = line.split(' ');
              return [point, options.split(',')] as const;
            }),
        );
        const expected: Record<string, readonly string[]> = {
          '/': ['ro', 'nosuid', 'nodev'],
          '/usr': ['ro'],
          '/etc': ['ro'],
          '/sys': ['ro', 'nosuid', 'nodev', 'noexec'],
          '/tmp': ['rw', 'nosuid', 'nodev'],
          '/run': ['rw', 'nosuid', 'nodev'],
          '/dev/shm': ['rw', 'nosuid', 'nodev'],
          '/proc': ['nosuid', 'nodev', 'noexec'],
          [workdir]: ['rw'],
        };
        for (const [point, wanted] of Object.entries(expected)) {
          expect(flags.get(point), `${point} in\n${table}`).toEqual(expect.arrayContaining([...wanted]));
        }
        // /dev is a directory of the read-only root: nothing but its mounts can be written.
        expect(flags.has('/dev'), table).toBe(false);
      });

      test("the host's root is gone: no trace of it at / and none of its mounts", async () => {
        // The host's root was stacked on the new one by pivot_root and unmounted lazily.
        const entries = (await run('ls -A /')).trim().split('\n');
        expect(entries).toContain('usr');
        for (const hostOnly of ['.old', 'mnt', 'srv', 'lost+found']) {
          expect(entries).not.toContain(hostOnly);
        }
        expect(await run(`test -e ${JSON.stringify(process.cwd())} && echo seen || echo unseen`)).toBe(
          'unseen\n',
        );
        const points = (await run("cut -d' ' -f5 /proc/self/mountinfo")).trim().split('\n');
        expect(points.filter((point) => point === '/')).toHaveLength(1);
      });

      test('building the util-linux sandbox starts few programs: the command is at most PID 20 of its namespace', async () => {
        // Each program costs milliseconds to start, and the sandbox is built for every command.
        // One mount or ln per mount point and link made it PID 50 and 220 ms a command.
        const pid = Number(await run('echo $$'));
        expect(pid).toBeGreaterThan(1);
        expect(pid).toBeLessThanOrEqual(20);
      });
    }

    test("the host's private directories are hidden", async () => {
      // Empty, or not there at all (util-linux builds its root from the system directories only).
      expect(await run('for d in /root /home; do [ -d $d ] && ls -A $d; done | grep -c . || true')).toBe(
        '0\n',
      );
    });
  }
});

describe('start-up probe and fallback', () => {
  let workdir: string;
  beforeAll(async () => {
    workdir = join(await tempBase(cleanup), 'wd');
  });

  test('without bubblewrap, auto falls back to util-linux as root, and refuses to start otherwise', async () => {
    if (!isRoot) {
      await expect(createBashRunner({ workdir, tools: { bwrap: null } })).rejects.toThrow(
        /bwrap: not installed.*--isolation none/s,
      );
      return;
    }
    const runner = await createBashRunner({ workdir, tools: { bwrap: null } });
    try {
      expect(runner.isolation.level).toBe('util-linux');
      expect(runner.isolation.fallbacks.join('\n')).toMatch(/^bwrap: not installed/);
      expect((await runner.run(use('echo hi'))).result.content).toBe('hi\n');
    } finally {
      await runner.close();
    }
  });

  test('auto never falls back to none: with no isolating level it refuses to start and says what to do', async () => {
    const attempt = createBashRunner({ workdir, tools: { bwrap: null, unshare: null } });
    await expect(attempt).rejects.toThrow(RunnerStartError);
    await expect(createBashRunner({ workdir, tools: { bwrap: null, unshare: null } })).rejects.toThrow(
      /apt-get install bubblewrap.*--isolation none/s,
    );
  });

  test('a bubblewrap that cannot run is found by the probe and skipped', async () => {
    if (!isRoot) {
      await expect(createBashRunner({ workdir, tools: { bwrap: '/bin/false' } })).rejects.toThrow(
        /^.*bwrap: /,
      );
      return;
    }
    const logs: string[] = [];
    const runner = await createBashRunner({
      workdir,
      tools: { bwrap: '/bin/false' },
      log: (l) => logs.push(l),
    });
    try {
      expect(runner.isolation.level).not.toBe('bwrap');
      expect(runner.isolation.fallbacks[0]).toMatch(/^bwrap: /);
      expect(logs.join('\n')).toContain(`isolation ${runner.isolation.level}`);
    } finally {
      await runner.close();
    }
  });

  test('asking for bubblewrap where it cannot run is an error at start-up', async () => {
    await expect(createBashRunner({ workdir, isolation: 'bwrap', tools: { bwrap: null } })).rejects.toThrow(
      RunnerStartError,
    );
    await expect(
      createBashRunner({ workdir, isolation: 'bwrap', tools: { bwrap: '/bin/false' } }),
    ).rejects.toThrow(/bwrap: /);
  });

  test('a level whose commands would run as root is refused at start-up by the probe', async () => {
    // As root, isolation none with no identity to drop to leaves commands root.
    const attempt = createBashRunner({ workdir, isolation: 'none', runAs: null });
    if (isRoot) await expect(attempt).rejects.toThrow(/none: exit 90: still root/);
    else await (await attempt).close();
  });

  test('util-linux isolation is refused when the runner is not root', async () => {
    const attempt = createBashRunner({ workdir, isolation: 'util-linux', runAs: null });
    await expect(attempt).rejects.toThrow(/needs root/);
  });

  test('a timeout that is not a positive number is refused', async () => {
    await expect(createBashRunner({ workdir, timeoutS: 0 })).rejects.toThrow(RunnerStartError);
  });
});
