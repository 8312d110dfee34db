import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { containmentInfo, withSpawner } from '../../src/harness/containment/index.js';
import { runCommand } from '../../src/harness/run-command.js';
import { liveNow, waitForLive } from './process-helpers.js';

const env = { PATH: process.env.PATH };
const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Every case both ways a target is started: by the harness itself, and through the spawner of
 * a suite run (src/harness/containment/spawner.ts), which must not change what a run sees.
 */
const ways: [string, <T>(fn: () => Promise<T>) => Promise<T>, boolean][] = [
  ['started by the harness', (fn) => fn(), false],
  ['started through the spawner', withSpawner, true],
];

describe.each(ways)('%s', (_, within, throughSpawner) => {
  test('the target is a child of the harness, or of the spawner (where the containment needs no extra pipe)', () =>
    within(async () => {
      const run = await runCommand('echo $PPID', { env, timeoutMs: 5000 });
      const parent = Number(run.stdout.trim());
      if (throughSpawner && containmentInfo().method !== 'pid-namespace') {
        expect(parent).not.toBe(process.pid);
        expect(readFileSync(`/proc/${parent}/cmdline`, 'utf8')).toContain('child_process');
      } else expect(parent).toBe(process.pid);
    }));

  test('a target command runs under sh -c with the given stdin and environment', () =>
    within(async () => {
      const run = await runCommand('read line; echo "got $line $FOO"; echo err >&2; exit 3', {
        env: { ...env, FOO: 'bar' },
        stdin: 'hello\n',
        timeoutMs: 5000,
      });
      expect(run).toMatchObject({ exitCode: 3, stdout: 'got hello bar\n', stderr: 'err\n', timedOut: false });
    }));

  test('a command past its time budget is terminated with its whole process group', () =>
    within(async () => {
      const run = await runCommand('sleep 30 & echo $! > /dev/null; sleep 30', {
        env,
        timeoutMs: 200,
        graceMs: 100,
      });
      expect(run.timedOut).toBe(true);
      expect(run.durationMs).toBeLessThan(10_000);
    }));

  test('a background child holding the pipes open does not keep the run alive after the command exits', () =>
    within(async () => {
      const run = await runCommand('sleep 30 & echo started', { env, timeoutMs: 10_000 });
      expect(run.stdout).toBe('started\n');
      expect(run.timedOut).toBe(false);
    }));

  test('a setsid escapee holding stdout neither holds the run nor survives it: it is killed and reported', () =>
    within(async () => {
      const arg = `31${Math.floor(Math.random() * 1e6)}.5`;
      const run = await runCommand(`setsid sleep ${arg} & sleep 0.3; echo started`, {
        env,
        timeoutMs: 20_000,
      });
      expect(run.stdout).toBe('started\n');
      expect(run.timedOut).toBe(false);
      // Only waiting out the 20 s budget is the fault; a loaded machine (CI: two cores, a load of 10) takes seconds to start and end processes.
      expect(run.durationMs).toBeLessThan(15_000);
      expect(run.survivors?.map((s) => s.command)).toEqual([`sleep ${arg}`]);
      expect(liveNow(arg)).toEqual([]);
    }));

  test('a double-fork daemon that let go of the pipes is killed and reported', () =>
    within(async () => {
      const arg = `32${Math.floor(Math.random() * 1e6)}.5`;
      const run = await runCommand(
        `(setsid sh -c 'sleep ${arg} & exit 0' </dev/null >/dev/null 2>&1 &); sleep 0.3; echo done`,
        { env, timeoutMs: 20_000 },
      );
      expect(run.stdout).toBe('done\n');
      expect(run.survivors?.map((s) => s.command)).toEqual([`sleep ${arg}`]);
      expect(liveNow(arg)).toEqual([]);
    }));

  test('a command that leaves nothing behind has no survivors', () =>
    within(async () => {
      // A job that ends by itself a moment after the command is on its way out, not left behind.
      const run = await runCommand('sleep 0.3 >/dev/null 2>&1 & echo done', { env, timeoutMs: 10_000 });
      expect(run.survivors).toEqual([]);
    }));

  test('a background job the command left running in its own group is reported and killed', () =>
    within(async () => {
      const arg = `34${Math.floor(Math.random() * 1e6)}.5`;
      const run = await runCommand(`sleep ${arg} >/dev/null 2>&1 & echo done`, { env, timeoutMs: 10_000 });
      expect(run.survivors?.map((s) => s.command)).toEqual([`sleep ${arg}`]);
      expect(liveNow(arg)).toEqual([]);
    }));

  test('an abort kills the command and its escapees at once, without the grace', () =>
    within(async () => {
      const arg = `33${Math.floor(Math.random() * 1e6)}.5`;
      const controller = new AbortController();
      const running = runCommand(`trap '' TERM; setsid sleep ${arg} & sleep ${arg}`, {
        env,
        timeoutMs: 60_000,
        graceMs: 30_000,
        signal: controller.signal,
      });
      await waitForLive(arg, 2);
      const before = performance.now();
      controller.abort();
      const run = await running;
      // Only waiting out the 30 s grace is the fault; a loaded machine (CI: two cores, a load of 10) takes seconds to start and end processes.
      expect(performance.now() - before).toBeLessThan(15_000);
      expect(run.signal).toBe('SIGKILL');
      expect(liveNow(arg)).toEqual([]);
    }));

  test('stderr keeps its head and its tail: the first line of a long error survives a flood', () =>
    within(async () => {
      const run = await runCommand(
        `echo "Error: Cannot find module '/nonexistent.js'" >&2; head -c 100000 /dev/zero | tr '\\0' x >&2; echo; echo last words >&2; exit 1`,
        { env, timeoutMs: 10_000 },
      );
      expect(run.stderr.startsWith("Error: Cannot find module '/nonexistent.js'\n")).toBe(true);
      expect(run.stderr).toMatch(/\[\.\.\. \d+ bytes of stderr left out \.\.\.\]/);
      expect(run.stderr.endsWith('last words\n')).toBe(true);
      expect(run.stderr.length).toBeLessThan(17 * 1024 + 100);
    }));
});

test('a finished command leaves no timer behind to hold the harness open', () => {
  // In a process of its own, where no other test's timers come and go: a timer left after the
  // run (the wait for the output to drain, 500 ms) kept every wirecheck run alive that long.
  const script = [
    `import { runCommand } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/harness/run-command.js')).href)};`,
    "const run = await runCommand('echo done', { env: { PATH: process.env.PATH }, timeoutMs: 60000 });",
    "const timers = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;",
    'console.log(JSON.stringify({ stdout: run.stdout, timers }));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual({ stdout: 'done\n', timers: 0 });
});

describe('a timeout that starts over at the first contact', () => {
  // The command waits for a file the test writes 2.5 s after the start; the budget is 2 s.
  const waitFor = (file: string) => `while [ ! -e ${file} ]; do sleep 0.05; done; echo done`;
  const run = async (contactAfterMs: number | undefined, startTimeoutMs?: number) => {
    const dir = execFileSync('mktemp', ['-d']).toString().trim();
    const file = join(dir, 'go');
    const contact =
      contactAfterMs === undefined ? undefined : new Promise<void>((r) => setTimeout(r, contactAfterMs));
    const go = setTimeout(() => execFileSync('touch', [file]), 2500);
    try {
      return await runCommand(waitFor(file), {
        env,
        timeoutMs: 2000,
        graceMs: 100,
        ...(contact === undefined ? {} : { restartTimeoutOn: contact }),
        ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }),
      });
    } finally {
      clearTimeout(go);
      execFileSync('rm', ['-rf', dir]);
    }
  };

  test('without a contact the command is timed out at its budget', async () => {
    expect((await run(undefined)).timedOut).toBe(true);
  });

  test('a contact 1.5 s in gives the budget again from then: the command finishes', async () => {
    const done = await run(1500);
    expect(done).toMatchObject({ timedOut: false, exitCode: 0, stdout: 'done\n' });
  });

  test('a contact after the budget ran out comes too late, unless startTimeoutMs allows that long', async () => {
    expect((await run(2200)).timedOut).toBe(true);
    const done = await run(2200, 3000);
    expect(done).toMatchObject({ timedOut: false, exitCode: 0, stdout: 'done\n' });
  });

  test('a startTimeoutMs shorter than the budget does not shorten it', async () => {
    const done = await run(1500, 500);
    expect(done).toMatchObject({ timedOut: false, exitCode: 0, stdout: 'done\n' });
  });

  test('startTimeoutMs without a contact to wait for changes nothing: the budget holds', async () => {
    expect((await run(undefined, 3000)).timedOut).toBe(true);
  });
});

describe('a timeout counted between steps', () => {
  // `sleep 3` against a 1 s budget, with a step every 400 ms for as long as the command runs.
  const run = async (atMostMs: number) => {
    let step = () => {};
    const ticks = setInterval(() => step(), 400);
    try {
      return await runCommand('sleep 3; echo done', {
        env,
        timeoutMs: 1000,
        graceMs: 100,
        stepped: { onStep: (s) => (step = s), atMostMs },
      });
    } finally {
      clearInterval(ticks);
    }
  };

  test('each step gives the budget again: a command that keeps stepping finishes', async () => {
    expect(await run(10_000)).toMatchObject({ timedOut: false, exitCode: 0, stdout: 'done\n' });
  });

  test('the time in all is bounded from the first step, whatever the steps', async () => {
    const done = await run(1500);
    expect(done.timedOut).toBe(true);
    expect(done.durationMs).toBeLessThan(2800);
  });
});
