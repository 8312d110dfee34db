import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import {
  CONTAINMENT_METHODS,
  type ContainedTarget,
  type ContainmentMethod,
  METHOD_VARIABLE,
  resetContainment,
  spawnContained,
} from '../../../src/harness/containment/index.js';
import { isAlive, killPid } from '../../../src/harness/containment/procfs.js';
import { liveNow, waitForLive } from '../process-helpers.js';

// A target whose process ended by itself (before wirecheck signalled it) is judged on what it left
// in its own process group too: nothing would signal that group for a real user. One wirecheck
// signalled is not: the group's kill ended those processes with it.

const original = process.env[METHOD_VARIABLE];
afterAll(() => {
  if (original === undefined) delete process.env[METHOD_VARIABLE];
  else process.env[METHOD_VARIABLE] = original;
  resetContainment();
});

/** `arg`, a `sleep` argument of this test's own: what carries it is killed by pid when the test ends, whatever its assertions did. */
function own(arg: string): string {
  onTestFinished(() => {
    for (const pid of liveNow(arg)) killPid(pid);
  });
  return arg;
}

const digits = () => String(randomBytes(4).readUInt32BE(0));

/** A unique `sleep` argument (hundreds of seconds). */
function marker(): string {
  return own(`5${randomBytes(2).readUInt16BE(0) % 100}.${digits()}`);
}

function start(method: ContainmentMethod, command: string): ContainedTarget {
  process.env[METHOD_VARIABLE] = method;
  resetContainment();
  return spawnContained(command, { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function exited(target: ContainedTarget): Promise<void> {
  if (target.child.exitCode !== null || target.child.signalCode !== null) return;
  await new Promise((resolve) => target.child.once('exit', resolve));
}

describe.each(CONTAINMENT_METHODS)('containment by %s', (method) => {
  test('a background job the target left in its group when it exited by itself is reported and killed', async () => {
    const arg = marker();
    const target = start(method, `sleep ${arg} >/dev/null 2>&1 & echo started`);
    const job = await waitForLive(arg);
    await exited(target);
    const survivors = await target.close();
    expect(survivors).toEqual([{ pid: job, command: `sleep ${arg}` }]);
    expect(isAlive(job)).toBe(false);
  });

  test('a signal to the group after the target exited by itself does not end what it left there', async () => {
    // A tool server is signalled at the end of its session: one that exited on end of input first
    // would otherwise have its leftovers ended by that signal, unreported.
    const arg = marker();
    const target = start(method, `sleep ${arg} >/dev/null 2>&1 & echo started`);
    const job = await waitForLive(arg);
    await exited(target);
    target.signalGroup('SIGTERM');
    expect((await target.close()).map((s) => s.pid)).toEqual([job]);
    expect(isAlive(job)).toBe(false);
  });

  test('a job of its group that ends by itself within the grace after the target is not reported', async () => {
    // The job waits on a FIFO until the test, having seen it outlive the target, lets it end: it
    // then ends within GROUP_GRACE_MS however loaded the machine (a timed sleep raced the load).
    const dir = mkdtempSync(join(tmpdir(), 'wirecheck-group-grace-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const fifo = join(dir, 'go');
    execFileSync('mkfifo', [fifo]);
    const arg = own(`wirecheck-grace-${digits()}`);
    const target = start(method, `sh -c 'read line < "$1"' ${arg} ${fifo} >/dev/null 2>&1 & echo started`);
    const job = await waitForLive(arg);
    await exited(target);
    expect(isAlive(job)).toBe(true);
    writeFileSync(fifo, 'go\n'); // the job holds the FIFO open for reading: this does not block
    expect(await target.close()).toEqual([]);
    expect(isAlive(job)).toBe(false);
  });

  test('a background job in the group of a target wirecheck killed is killed without being reported', async () => {
    const arg = marker();
    const target = start(method, `sleep ${arg} >/dev/null 2>&1 & exec sleep ${arg}`);
    await waitForLive(arg, 2);
    target.signalGroup('SIGKILL');
    await exited(target);
    expect(await target.close()).toEqual([]);
    expect(liveNow(arg)).toEqual([]);
  });
});
