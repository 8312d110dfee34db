import { existsSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  blankOutputText,
  OUTPUT_LIMIT_BYTES,
  restartText,
  STDERR_SEPARATOR,
  timeoutText,
} from '../../src/protocol/bash/index.js';
import { type BashRunner, createBashRunner, MINIMAL_PATH, RUNNER_USER } from '../../src/runner/index.js';
import { escapeThenReport, isRoot, survivorsAfter, tempBase, use } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
let base: string;
let workdir: string;
/** Commands that should end on their own: a generous timeout, so only a hang reaches it. */
let runner: BashRunner;
/** For the timeout rules: 1 s. */
let quick: BashRunner;

beforeAll(async () => {
  base = await tempBase(cleanup);
  workdir = join(base, 'not', 'yet', 'there');
  runner = await createBashRunner({ workdir, timeoutS: 10 });
  quick = await createBashRunner({ workdir: join(base, 'quick'), timeoutS: 1 });
});
afterAll(async () => {
  await runner?.close();
  await quick?.close();
  for (const c of cleanup.reverse()) await c();
});

const run = (command: string) => runner.run(use(command));

describe('Runner contract 2: execution', () => {
  test('the working directory is created if absent and is the shell cwd and HOME', async () => {
    const report = await run('pwd; echo "$HOME"');
    expect(report.result.content).toBe(`${workdir}\n${workdir}\n`);
    expect((await stat(workdir)).isDirectory()).toBe(true);
  });

  test('a working directory deleted between commands is created again', async () => {
    await rm(workdir, { recursive: true, force: true });
    const report = await run('touch made-here && ls');
    expect(report.result).toMatchObject({ content: 'made-here\n', is_error: false });
  });

  test('the working directory stays writable for the command', async () => {
    expect((await run('echo data > file && cat file')).result.content).toBe('data\n');
  });

  test('the command never runs as the superuser', async () => {
    const report = await run('id -u; id -g');
    const [uid, gid] = report.result.content.trim().split('\n');
    expect(uid).not.toBe('0');
    if (isRoot) expect([uid, gid]).toEqual(['65534', '65534']);
  });

  test('the environment is minimal: PATH, HOME = working directory, a fixed USER', async () => {
    const report = await run('env');
    const env = Object.fromEntries(
      report.result.content
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({ PATH: MINIMAL_PATH, HOME: workdir, USER: RUNNER_USER });
    // bash itself adds PWD, SHLVL and _; nothing of the runner's environment leaks in.
    expect(Object.keys(env).sort()).toEqual(['HOME', 'PATH', 'PWD', 'SHLVL', 'USER', '_']);
  });

  test('the command runs in its own session and process group', async () => {
    const report = await run('ps -o pid=,pgid=,sid= -p $$');
    const [pid, pgid, sid] = report.result.content.trim().split(/\s+/).map(Number);
    expect(pgid).toBe(sid);
    expect(pgid).not.toBe(process.pid);
    expect(pid).toBeGreaterThan(0);
  });

  test('stdin is closed: a command reading it sees end of input at once', async () => {
    const report = await run('cat; read x || echo eof');
    expect(report.result.content).toBe('eof\n');
  });

  test('a .bashrc written in the working directory (HOME) is never sourced', async () => {
    await run("echo 'echo PWNED' > .bashrc; echo 'echo PWNED' > .profile");
    expect((await run('true')).result.content).toBe(blankOutputText(0));
  });

  test('a 1 MB command runs (it is not passed as an argument)', async () => {
    const payload = 'a'.repeat(1 << 20);
    const report = await run(`X='${payload}'; echo \${#X}`);
    expect(report.result).toMatchObject({ content: `${1 << 20}\n`, is_error: false });
  });

  test('a command starting with a dash is a command, not an option of bash', async () => {
    const report = await run('--version');
    expect(report.exitCode).toBe(127);
  });
});

describe('Runner contract 4, 6, 7: output and exit codes', () => {
  test('stdout, then the separator line, then stderr', async () => {
    const report = await run('echo out; echo err >&2');
    expect(report.result).toEqual({
      type: 'tool_result',
      tool_use_id: report.result.tool_use_id,
      content: `out\n\n${STDERR_SEPARATOR}\nerr\n`,
      is_error: false,
    });
  });

  test('stderr alone comes without the separator', async () => {
    expect((await run('echo warn >&2')).result).toMatchObject({ content: 'warn\n', is_error: false });
  });

  test.each([0, 1, 2, 42, 126, 127, 255])(
    'exit code %i is reported and is_error is exactly exit != 0',
    async (code) => {
      const report = await run(`echo x; exit ${code}`);
      expect(report.exitCode).toBe(code);
      expect(report.result.is_error).toBe(code !== 0);
    },
  );

  test.each([
    ['KILL', 137],
    ['TERM', 143],
    ['INT', 130],
  ])('death by SIG%s is exit code %i (128+n) and an error', async (signal, code) => {
    const report = await run(`kill -${signal} $$`);
    expect(report.exitCode).toBe(code);
    expect(report.result).toMatchObject({ content: blankOutputText(code), is_error: true });
  });

  test('blank output gives the text with the exit code', async () => {
    expect((await run('true')).result).toMatchObject({ content: blankOutputText(0), is_error: false });
    expect((await run('exit 3')).result).toMatchObject({ content: blankOutputText(3), is_error: true });
  });

  test('closing stdout and stderr early still gives the exit code', async () => {
    const report = await run('exec 1>&- 2>&-; exit 4');
    expect(report.result).toMatchObject({ content: blankOutputText(4), is_error: true });
  });

  test('output over 65536 bytes is cut there and the 64 KB note follows', async () => {
    const report = await run("head -c 70000 /dev/zero | tr '\\0' a");
    const [body, note] = [
      report.result.content.slice(0, OUTPUT_LIMIT_BYTES),
      report.result.content.slice(OUTPUT_LIMIT_BYTES),
    ];
    expect(body).toBe('a'.repeat(OUTPUT_LIMIT_BYTES));
    expect(note).toMatch(/^\n\[output truncated: the 64 KB limit \(65536 bytes\) was exceeded; 70000 bytes/);
    expect(report).toMatchObject({ truncated: true, stdoutBytes: 70000, exitCode: 0 });
  });

  test('the cut falls on a UTF-8 character boundary', async () => {
    const report = await run("printf x; yes 'é' | head -c 150000 | tr -d '\\n'");
    const body = report.result.content.slice(0, report.result.content.indexOf('\n[output truncated'));
    expect(body).not.toContain('\uFFFD');
    expect(Buffer.byteLength(body)).toBe(OUTPUT_LIMIT_BYTES - 1);
  });

  test('output that is not UTF-8 comes back with replacement characters', async () => {
    expect((await run("printf 'a\\377b'")).result.content).toBe('a\uFFFDb');
  });

  test('a command printing hundreds of MB keeps the runner memory bounded and exits 0', async () => {
    // A first large run lets the heap settle (lazily collected chunk buffers); the second is measured.
    await run('head -c 100M /dev/zero');
    const before = process.memoryUsage().rss;
    const report = await run('head -c 400M /dev/zero');
    const growth = process.memoryUsage().rss - before;
    expect(report).toMatchObject({ exitCode: 0, truncated: true, stdoutBytes: 400 * 1024 * 1024 });
    // Keeping the output would take 400 MB; the loose bound leaves room for GC timing.
    expect(growth).toBeLessThan(64 * 1024 * 1024);
  });

  test('a flood on stderr does not push stdout out', async () => {
    const report = await run('echo first; head -c 1M /dev/zero >&2');
    expect(report.result.content.startsWith(`first\n\n${STDERR_SEPARATOR}\n`)).toBe(true);
  });
});

describe('Runner contract 1: refusal', () => {
  test.each([
    ["echo 'rm -rf /'"],
    ["echo 'RM -RF /'"],
    ['echo rm  -rf /'],
    ['echo MKFS'],
    ['echo dd  if=/dev/null'],
    ["echo '>/dev/sda'"],
    ["echo ':(){ :|:& };:'"],
    ["echo ':(){:|:&};:'"],
    ["echo 'chmod -R 777 /'"],
  ])('%s is refused with a security violation and never runs', async (payload) => {
    const marker = `refused-${Math.random().toString(36).slice(2)}`;
    const report = await run(`touch ${marker}; ${payload}`);
    expect(report.result.is_error).toBe(true);
    expect(report.result.content).toMatch(/security violation/i);
    expect(report.outcome).toBe('refused');
    expect(existsSync(join(workdir, marker))).toBe(false);
  });
});

describe('Runner contract 3: timeout', () => {
  test('a command past the timeout gives exit -1, is_error and the text with the seconds', async () => {
    const report = await quick.run(use('echo before; sleep 30'));
    expect(report.exitCode).toBe(-1);
    expect(report.result.is_error).toBe(true);
    expect(report.result.content).toBe(`${timeoutText(1)}\nbefore\n`);
    expect(report.result.content).toMatch(/timed out after 1 seconds/);
  });

  test('the terminate signal comes first: a TERM handler runs', async () => {
    const report = await quick.run(use("trap 'echo got TERM; exit 143' TERM; sleep 30 & wait"));
    expect(report.exitCode).toBe(-1);
    expect(report.result.content).toContain('got TERM');
  });

  test('a command ignoring TERM is killed after the 2 s grace', async () => {
    const report = await quick.run(use("trap '' TERM; sleep 30"));
    expect(report.outcome).toBe('timed-out');
    expect(report.exitCode).toBe(-1);
    // It cannot have ended before the timeout plus the grace (a lower bound, not a speed test).
    expect(report.durationMs).toBeGreaterThanOrEqual(2900);
  });

  test('the whole process group is terminated, background jobs included', async () => {
    const report = await quick.run(use('sleep 297.25 & sleep 297.25 & wait'));
    expect(report.outcome).toBe('timed-out');
    expect(await survivorsAfter('297.25')).toEqual([]);
  });
});

describe('background processes', () => {
  test('a background job holding the pipes does not hold the result', async () => {
    const report = await run('sleep 30 & echo started');
    expect(report).toMatchObject({ outcome: 'ran', exitCode: 0 });
    expect(report.result.content).toBe('started\n');
  });

  test('processes that left the process group (setsid, double fork) are gone after the command', async () => {
    const report = await run(`${escapeThenReport('298.5')}; (sleep 298.5 >/dev/null &); echo started`);
    expect(report).toMatchObject({ outcome: 'ran', exitCode: 0 });
    expect(await survivorsAfter('298.5')).toEqual([]);
  });
});

describe('Errors: a process that cannot be started', () => {
  test('a working directory that cannot be created gives a process execution error', async () => {
    const file = join(base, 'a-file');
    await writeFile(file, '');
    const broken = await createBashRunner({ workdir: join(file, 'wd'), timeoutS: 5 });
    try {
      const report = await broken.run(use('echo hi'));
      expect(report.result.is_error).toBe(true);
      expect(report.result.content).toMatch(/^Process execution error: /);
      expect(report).toMatchObject({ outcome: 'spawn-failed', exitCode: 1 });
    } finally {
      await broken.close();
    }
  });

  test('a NUL byte in the command gives an error result, not a crash', async () => {
    const report = await run('echo a\u0000b');
    expect(report.result.is_error).toBe(true);
    expect(report.result.content).toMatch(/Process execution error: .*NUL/);
    expect((await run('echo still here')).result.content).toBe('still here\n');
  });
});

describe('restart', () => {
  test('restart: true alone discards the session and confirms', async () => {
    const before = runner.session.generation;
    const report = await runner.run({
      type: 'tool_use',
      id: 'toolu_r',
      name: 'bash',
      input: { restart: true },
    });
    expect(report.result).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_r',
      content: restartText(),
      is_error: false,
    });
    expect(runner.session).toEqual({ generation: before + 1, commandsRun: 0 });
  });

  test('restart: true with a command runs the command in the fresh session', async () => {
    const report = await runner.run(use('echo fresh', { restart: true }));
    expect(report.result.content).toBe('fresh\n');
    expect(report.session.commandsRun).toBe(1);
  });

  test('no shell state carries over between commands', async () => {
    await run('export FOO=1; cd /tmp');
    expect((await run('echo "[$FOO]"; pwd')).result.content).toBe(`[]\n${workdir}\n`);
  });
});

describe('metadata', () => {
  test('every report names the isolation level in force', async () => {
    const report = await run('echo hi');
    expect(report.isolation).toBe(runner.isolation.level);
    expect(['bwrap', 'util-linux', 'none']).toContain(report.isolation);
    expect(report).toMatchObject({ stdoutBytes: 3, stderrBytes: 0, exitCode: 0 });
  });
});
