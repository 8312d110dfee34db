import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { shellQuote } from '../../src/harness/run-suite.js';

// Under GitHub Actions a run stops the runner's workflow commands for the length of its
// output: the resume line must be written however the run ends, or the runner obeys no
// command for the rest of the step (the user's own `::error::` or `::set-output` after it).

const ROOT = resolve(import.meta.dirname, '../..');
const STOP = /^::stop-commands::(wirecheck-[0-9a-f]{32})$/m;

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function started(args: string[]) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, GITHUB_ACTIONS: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (c: Buffer) => (output.stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output.stderr += c.toString()));
  cleanup.push(() => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
      process.kill(-child.pid, 'SIGKILL');
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { child, output, exit };
}

async function until(condition: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Both streams begin with the stop and end with its resume. */
function expectResumed(output: { stdout: string; stderr: string }): void {
  const context = `stdout:\n${output.stdout}\nstderr:\n${output.stderr}`;
  const token = STOP.exec(output.stdout)?.[1];
  expect(token, context).toBeDefined();
  for (const text of [output.stdout, output.stderr]) {
    expect(text.split('\n')[0], context).toBe(`::stop-commands::${token}`);
    expect(text.trimEnd().split('\n').at(-1), context).toBe(`::${token}::`);
  }
}

test('a run interrupted by SIGTERM writes the resume line last, on stdout and on stderr', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-workflow-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const pidFile = join(dir, 'pids');
  const runner = `${shellQuote(process.execPath)} ${shellQuote(join(ROOT, 'test/cli/targets/stalling-runner.mjs'))} ${shellQuote(pidFile)}`;
  const { child, output, exit } = started([
    join(ROOT, 'bin/wirecheck.js'),
    'test',
    'runner',
    '--runner',
    runner,
    '--seed',
    '1',
  ]);
  const stalled = () => {
    try {
      return readFileSync(pidFile, 'utf8').includes('stall');
    } catch {
      return false;
    }
  };
  await until(
    () => stalled() || child.exitCode !== null,
    60_000,
    () => `the runner to stall\n${output.stderr}`,
  );
  child.kill('SIGTERM');
  expect((await exit).code).toBe(143);
  expectResumed(output);
}, 90_000);

test('a second signal, which ends the process at once, writes the resume line first', async () => {
  const { child, output, exit } = started([join(ROOT, 'test/cli/targets/workflow-stopped-run.mjs')]);
  await until(
    () => output.stdout.includes('ready\n'),
    20_000,
    () => `the fixture\n${output.stderr}`,
  );
  child.kill('SIGINT');
  await until(
    () => output.stdout.includes('stopping\n'),
    5_000,
    () => 'the first SIGINT',
  );
  child.kill('SIGINT');
  expect(await exit).toEqual({ code: null, signal: 'SIGINT' });
  expectResumed(output);
  // The target's line came through the guarded output: filtered.
  expect(output.stderr).toContain('\\u003a:error::from the target');
}, 60_000);

test('a command that handles no signal, ended by one, writes the resume line and dies of that signal', async () => {
  const { child, output, exit } = started([
    join(ROOT, 'test/cli/targets/workflow-stopped-run.mjs'),
    'unguarded',
  ]);
  await until(
    () => output.stdout.includes('ready\n'),
    20_000,
    () => `the fixture\n${output.stderr}`,
  );
  child.kill('SIGTERM');
  expect(await exit).toEqual({ code: null, signal: 'SIGTERM' });
  expectResumed(output);
}, 60_000);
