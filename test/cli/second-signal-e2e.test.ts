import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { isAlive } from '../../src/harness/containment/procfs.js';
import { LOCK_FILE } from '../../src/reporters/report-lock.js';

const FIXTURE = resolve(import.meta.dirname, 'targets/pool-blocked-run.mjs');

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Gone: no such process, or a zombie waiting for its reaper. */
const isGone = (pid: number): boolean => !isAlive(pid);

async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
}

test('a second SIGINT ends a stopping run at once, by SIGINT, even with a call blocked in the thread pool, and kills its contained targets first', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-second-signal-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'junit.xml');
  execFileSync('mkfifo', [fifo]);
  const reportDir = join(dir, 'reports');
  await mkdir(reportDir);
  const child = spawn(process.execPath, [FIXTURE, fifo, join(dir, 'escapee'), reportDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = exited(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  let escapee: number | undefined;
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (escapee !== undefined && !isGone(escapee)) process.kill(escapee, 'SIGKILL');
  });
  const context = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
  await until(() => /^ready \d+$/m.test(stdout), 20_000, `the fixture to be ready\n${context()}`);
  escapee = Number(/^ready (\d+)$/m.exec(stdout)?.[1]);
  expect(isGone(escapee), 'the escapee runs before the signals').toBe(false);
  child.kill('SIGINT');
  await until(() => stdout.includes('stopping'), 5_000, `the first SIGINT to stop the run\n${context()}`);
  const signalled = performance.now();
  child.kill('SIGINT');
  // Before: process.exit waited for the pool's blocked open() for ever, so only a hang is the
  // fault; a loaded machine (CI: two cores, a load of 10) takes seconds to end a process.
  const ended = await Promise.race([
    exit,
    new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000)),
  ]);
  expect(ended, context()).toEqual({ code: null, signal: 'SIGINT' });
  expect(performance.now() - signalled).toBeLessThan(15_000);
  const target = escapee;
  await until(() => isGone(target), 3_000, `the contained escapee ${target} to be gone`).catch(() => {});
  expect(isGone(target), `the contained escapee ${target} outlived the run`).toBe(true);
  // No 'exit' handler runs on a death by signal: the lock is removed before it, or the next run
  // into the directory from another host (a container's new name) would be refused.
  expect(existsSync(join(reportDir, LOCK_FILE))).toBe(false);
}, 60_000);
