import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { isAlive } from '../../src/harness/containment/procfs.js';
import { SuiteResult } from '../../src/harness/results.js';
import { shellQuote } from '../../src/harness/run-suite.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RUNNER = join(ROOT, 'test/cli/targets/stalling-runner.mjs');

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Gone: no such process, or a zombie waiting for its reaper (FACTS: zombies linger ~2 s). */
const isGone = (pid: number): boolean => !isAlive(pid);

function pidsIn(file: string): { started: number[]; stalled: number[] } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  const of = (word: string) =>
    [...text.matchAll(new RegExp(`^${word} (\\d+)$`, 'gm'))].map((m) => Number(m[1]));
  return { started: of('start'), stalled: of('stall') };
}

async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Start `wirecheck test runner` as a user would, against the stalling runner; signal it once the runner stalls mid-check. */
async function interrupted(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP') {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-interrupt-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const pidFile = join(dir, 'pids');
  const reportDir = join(dir, 'report');
  const runner = `${shellQuote(process.execPath)} ${shellQuote(RUNNER)} ${shellQuote(pidFile)}`;
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/wirecheck.js'),
      'test',
      'runner',
      '--runner',
      runner,
      '--seed',
      '1',
      '--report-dir',
      reportDir,
    ],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const exit = exited(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  cleanup.push(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    for (const pid of pidsIn(pidFile).started) if (!isGone(pid)) process.kill(pid, 'SIGKILL');
  });
  await until(
    () => pidsIn(pidFile).stalled.length > 0 || child.exitCode !== null,
    60_000,
    'the runner to stall',
  );
  expect(child.exitCode, `wirecheck ended before the runner stalled:\n${stdout}\n${stderr}`).toBe(null);
  const signalled = performance.now();
  child.kill(signal);
  const { code } = await exit;
  const tookMs = performance.now() - signalled;
  const pids = pidsIn(pidFile);
  // The runner's processes die with the check; give their reaping a moment.
  await until(() => pids.started.every(isGone), 3_000, 'the runner processes to be gone').catch(() => {});
  return { code, tookMs, stdout, stderr, pids, reportDir };
}

describe('an interrupt ends a real run quickly, with its report, and leaves no target process behind', () => {
  test('SIGINT: exit 130 within a second or so, "interrupted" and the totals printed, results.json written, the stalled runner gone', async () => {
    const run = await interrupted('SIGINT');
    const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).toBe(130);
    expect(run.tookMs, context).toBeLessThan(3_000);
    expect(run.stdout).toContain('interrupted by SIGINT: ');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^\d+ passed, \d+ failed, \d+ warned, \d+ skipped$/,
    );
    const results = SuiteResult.parse(
      JSON.parse(await readFile(join(run.reportDir, 'results.json'), 'utf8')),
    );
    expect(results.stopped).toEqual({
      kind: 'interrupted',
      signal: 'SIGINT',
      message: 'interrupted by SIGINT',
    });
    expect(results.checks.some((c) => c.message === 'not run: interrupted by SIGINT while it ran')).toBe(
      true,
    );
    expect(results.summary.notRun).toBeGreaterThan(0);
    expect(run.pids.stalled.length).toBeGreaterThan(0);
    expect(run.pids.started.filter((pid) => !isGone(pid))).toEqual([]);
  }, 90_000);

  test('SIGTERM: exit 143, the report written, the stalled runner gone', async () => {
    const run = await interrupted('SIGTERM');
    const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).toBe(143);
    expect(run.tookMs, context).toBeLessThan(3_000);
    const results = SuiteResult.parse(
      JSON.parse(await readFile(join(run.reportDir, 'results.json'), 'utf8')),
    );
    expect(results.stopped?.signal).toBe('SIGTERM');
    expect(run.pids.started.filter((pid) => !isGone(pid))).toEqual([]);
  }, 90_000);

  test('SIGHUP (a closed terminal, a CI cancel): exit 129, the report written with stopped.signal SIGHUP, the stalled runner gone', async () => {
    const run = await interrupted('SIGHUP');
    const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).toBe(129);
    expect(run.tookMs, context).toBeLessThan(3_000);
    expect(run.stdout).toContain('interrupted by SIGHUP: ');
    const results = SuiteResult.parse(
      JSON.parse(await readFile(join(run.reportDir, 'results.json'), 'utf8')),
    );
    expect(results.stopped).toEqual({
      kind: 'interrupted',
      signal: 'SIGHUP',
      message: 'interrupted by SIGHUP',
    });
    expect(results.summary.notRun).toBeGreaterThan(0);
    expect(run.pids.started.filter((pid) => !isGone(pid))).toEqual([]);
  }, 90_000);
});
