import { describe, expect, test } from 'vitest';
import {
  bwrapCommandLine,
  type CommandPlan,
  commandLine,
  DEV_SHM_BYTES,
  MINIMAL_PATH,
  NO_ISOLATION_PARENT,
  noIsolationCommandLine,
  SANDBOX_ROOT_BYTES,
  SANDBOX_SCRIPT_PATH,
  utilLinuxCommandLine,
} from '../../src/runner/index.js';

const TOOLS = {
  bash: '/bin/bash',
  sh: '/bin/sh',
  bwrap: '/usr/bin/bwrap',
  prlimit: '/usr/bin/prlimit',
  unshare: '/usr/bin/unshare',
  setpriv: '/usr/bin/setpriv',
};
const COMMAND_TEXT = 'echo the-secret-command';

function plan(overrides: Partial<CommandPlan> = {}): CommandPlan {
  return {
    level: 'bwrap',
    workdir: '/srv/work dir',
    scriptPath: '/tmp/wirecheck-runner-x/command-1.sh',
    skeletonPath: '/tmp/wirecheck-runner-x/skeleton',
    env: { PATH: MINIMAL_PATH, HOME: '/srv/work dir', USER: 'runner' },
    runAs: { uid: 65534, gid: 65534 },
    limits: { processes: 100, openFiles: 200, fileSizeBytes: 300 },
    tmpBytes: 4096,
    masked: ['/run', '/root'],
    seccomp: null,
    tools: TOOLS,
    ...overrides,
  };
}

/** The value right after `flag` in argv. */
const valueAfter = (argv: readonly string[], flag: string) => argv[argv.indexOf(flag) + 1];
const argvOf = (spec: { file: string; args: readonly string[] }) => [spec.file, ...spec.args];

describe('bubblewrap command line', () => {
  const spec = bwrapCommandLine(plan());
  const argv = argvOf(spec);

  test('resource limits come first: processes, open files, file size, no core dumps', () => {
    expect(argv.slice(0, 6)).toEqual([
      '/usr/bin/prlimit',
      '--nproc=100',
      '--nofile=200',
      '--fsize=300',
      '--core=0',
      '--',
    ]);
  });

  test('a read-only root, a bounded private /tmp, the working directory bound writable', () => {
    expect(argv.join(' ')).toContain('--ro-bind / /');
    expect(argv.join(' ')).toContain('--size 4096 --tmpfs /tmp');
    const bind = argv.indexOf('--bind');
    expect(argv.slice(bind, bind + 3)).toEqual(['--bind', '/srv/work dir', '/srv/work dir']);
    expect(valueAfter(argv, '--chdir')).toBe('/srv/work dir');
    // The workdir is bound after /tmp and the masks, so it shows through them.
    expect(bind).toBeGreaterThan(argv.lastIndexOf('--tmpfs'));
  });

  test('no network, own PID namespace, no nested user namespaces, no capabilities', () => {
    for (const flag of [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
    ]) {
      expect(argv).toContain(flag);
    }
    expect(valueAfter(argv, '--cap-drop')).toBe('ALL');
    expect(argv).not.toContain('--share-net');
  });

  test('host directories are hidden behind small tmpfs mounts, /run once', () => {
    expect(argv.join(' ')).toContain('--tmpfs /run');
    expect(argv.join(' ')).toContain('--tmpfs /root');
    expect(argv.filter((a, i) => a === '/run' && argv[i - 1] === '--tmpfs')).toHaveLength(1);
  });

  test('every tmpfs has a size, and /dev (whose own tmpfs bubblewrap cannot size) is read-only with a sized /dev/shm', () => {
    argv.forEach((a, i) => {
      if (a === '--tmpfs') expect(argv[i - 2]).toBe('--size');
    });
    const shm = argv.indexOf('/dev/shm');
    expect(argv.slice(shm - 3, shm + 1)).toEqual(['--size', String(DEV_SHM_BYTES), '--tmpfs', '/dev/shm']);
    expect(argv.indexOf('--remount-ro')).toBeGreaterThan(shm);
    expect(valueAfter(argv, '--remount-ro')).toBe('/dev');
  });

  test('with a seccomp filter, bwrap loads it from fd 5', () => {
    const filter = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
    const withFilter = bwrapCommandLine(plan({ seccomp: filter }));
    const args = argvOf(withFilter);
    expect(valueAfter(args, '--seccomp')).toBe('5');
    expect(withFilter.extraFds).toEqual(['script-in', 'info-out', 'seccomp-in']);
    expect(withFilter.seccomp).toBe(filter);
    expect(argv).not.toContain('--seccomp');
  });

  test('the command goes in through fd 3, never as an argument; bwrap reports its pid on fd 4', () => {
    expect(argv.join('\0')).not.toContain(COMMAND_TEXT);
    expect(valueAfter(argv, '--ro-bind-data')).toBe('3');
    expect(valueAfter(argv, '--info-fd')).toBe('4');
    expect(spec.extraFds).toEqual(['script-in', 'info-out']);
    expect(argv.slice(-4)).toEqual(['/bin/bash', '--norc', '--noprofile', SANDBOX_SCRIPT_PATH]);
  });

  test('the environment is cleared and set to exactly the given variables', () => {
    expect(argv).toContain('--clearenv');
    const setenv = argv.flatMap((a, i) => (a === '--setenv' ? [`${argv[i + 1]}=${argv[i + 2]}`] : []));
    expect(setenv).toEqual([`PATH=${MINIMAL_PATH}`, 'HOME=/srv/work dir', 'USER=runner']);
  });

  test('bwrap itself runs as the unprivileged identity', () => {
    expect(spec.runAs).toEqual({ uid: 65534, gid: 65534 });
  });

  test('without prlimit there are no limits and bwrap comes first', () => {
    const bare = bwrapCommandLine(plan({ limits: null }));
    expect(bare.file).toBe('/usr/bin/bwrap');
  });
});

describe('util-linux command line', () => {
  const spec = utilLinuxCommandLine(plan({ level: 'util-linux' }));
  const argv = argvOf(spec);

  test('dies with the runner, then limits, then fresh PID, mount, network, IPC and UTS namespaces', () => {
    expect(argv.slice(0, 4)).toEqual(['/usr/bin/setpriv', '--pdeathsig', 'KILL', '--']);
    expect(argv).toContain('/usr/bin/prlimit');
    for (const flag of [
      '--pid',
      '--fork',
      '--kill-child',
      '--mount-proc',
      '--net',
      '--ipc',
      '--uts',
      '--mount',
    ]) {
      expect(argv).toContain(flag);
    }
  });

  test('the setup script gets the script path, workdir, skeleton, sizes, identity, masks and environment', () => {
    const rest = argv.slice(argv.indexOf('wirecheck-setup') + 1);
    expect(rest).toEqual([
      '/tmp/wirecheck-runner-x/command-1.sh',
      '/srv/work dir',
      '/tmp/wirecheck-runner-x/skeleton',
      '4096',
      String(DEV_SHM_BYTES),
      String(SANDBOX_ROOT_BYTES),
      '65534',
      '65534',
      '/usr/bin/setpriv',
      '/bin/bash',
      '2',
      '/run',
      '/root',
      `PATH=${MINIMAL_PATH}`,
      'HOME=/srv/work dir',
      'USER=runner',
    ]);
    expect(argv.join('\0')).not.toContain(COMMAND_TEXT);
  });

  test('it starts as the runner (root) to set up mounts, and needs an identity to drop to', () => {
    expect(spec.runAs).toBeNull();
    expect(() => utilLinuxCommandLine(plan({ level: 'util-linux', runAs: null }))).toThrow(/uid to drop to/);
  });

  test('its bash and setpriv must lie in the system directories its root is built from', () => {
    expect(() =>
      utilLinuxCommandLine(
        plan({ level: 'util-linux', tools: { ...TOOLS, setpriv: '/home/me/bin/setpriv' } }),
      ),
    ).toThrow(/setpriv inside a root of the system directories only/);
    expect(() =>
      utilLinuxCommandLine(plan({ level: 'util-linux', tools: { ...TOOLS, bash: '/srv/tools/bash' } })),
    ).toThrow(/\/srv\/tools\/bash is not in one/);
  });

  test('it builds the sandbox from the skeleton the runner wrote, and refuses without one', () => {
    expect(() => utilLinuxCommandLine(plan({ level: 'util-linux', skeletonPath: undefined }))).toThrow(
      /skeleton/,
    );
  });

  test('it needs unshare and setpriv', () => {
    expect(() =>
      utilLinuxCommandLine(plan({ level: 'util-linux', tools: { ...TOOLS, unshare: undefined } })),
    ).toThrow(/needs unshare/);
  });

  test("it refuses an environment variable whose name sh's export cannot take", () => {
    for (const name of ['A-B', '1X', 'X Y', '']) {
      expect(() =>
        utilLinuxCommandLine(plan({ level: 'util-linux', env: { PATH: MINIMAL_PATH, [name]: 'v' } })),
      ).toThrow(/sh's export/);
    }
    expect(() =>
      utilLinuxCommandLine(plan({ level: 'util-linux', env: { _X1: 'v', lower_case: 'w' } })),
    ).not.toThrow();
  });
});

describe('no isolation', () => {
  test('bash runs the script file in the working directory as the unprivileged identity, with the marker fd, under a parent sh holding only the minimal environment', () => {
    const spec = noIsolationCommandLine(plan({ level: 'none' }));
    expect(argvOf(spec)).toEqual([
      '/usr/bin/setpriv',
      '--pdeathsig',
      'KILL',
      '--no-new-privs',
      '--',
      '/usr/bin/prlimit',
      '--nproc=100',
      '--nofile=200',
      '--fsize=300',
      '--core=0',
      '--',
      '/bin/sh',
      '-c',
      NO_ISOLATION_PARENT,
      '/bin/bash',
      '/tmp/wirecheck-runner-x/command-1.sh',
    ]);
    expect(spec).toMatchObject({
      cwd: '/srv/work dir',
      runAs: { uid: 65534, gid: 65534 },
      extraFds: ['marker'],
    });
    expect(spec.env).toEqual({ PATH: MINIMAL_PATH, HOME: '/srv/work dir', USER: 'runner' });
  });

  test('with neither setpriv nor prlimit it is bash under its parent sh alone', () => {
    const spec = noIsolationCommandLine(
      plan({ level: 'none', limits: null, tools: { bash: '/bin/bash', sh: '/bin/sh' } }),
    );
    expect(argvOf(spec)).toEqual([
      '/bin/sh',
      '-c',
      NO_ISOLATION_PARENT,
      '/bin/bash',
      '/tmp/wirecheck-runner-x/command-1.sh',
    ]);
  });
});

test('commandLine picks the builder of the plan level', () => {
  expect(commandLine(plan({ level: 'bwrap' })).extraFds).toEqual(['script-in', 'info-out']);
  expect(commandLine(plan({ level: 'util-linux' })).extraFds).toEqual([]);
  expect(commandLine(plan({ level: 'none' })).extraFds).toEqual(['marker']);
});
