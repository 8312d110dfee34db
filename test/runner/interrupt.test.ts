import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { killAllContainedTargets, spawnContained } from '../../src/harness/containment/index.js';
import { liveWith, waitForLive } from '../harness/process-helpers.js';
import { availableLevels, tempBase } from './helpers.js';

// An interrupt (Ctrl-C, a cancelled CI job) must not leave a command of the reference runner
// running: neither when the harness kills its contained targets, nor when the runner itself
// gets SIGTERM (its sandbox dies with it: bubblewrap --die-with-parent, unshare --kill-child).

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/wirecheck.js');
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const probeDir = await mkdtemp(join(tmpdir(), 'wirecheck-interrupt-probe-'));
const LEVELS = await availableLevels(join(probeDir, 'wd'));
await rm(probeDir, { recursive: true, force: true });

const uniqueArg = () => `41${Math.floor(Math.random() * 1e7)}.5`;

/** A command that leaves a setsid escapee and then runs in the foreground, both `sleep <arg>`. */
function line(arg: string): string {
  const command = `setsid sleep ${arg} </dev/null >/dev/null 2>&1 & sleep ${arg}`;
  return `${JSON.stringify({ type: 'tool_use', id: 'toolu_long', name: 'bash', input: { command } })}\n`;
}

describe.each(LEVELS)('reference runner at isolation %s', (level) => {
  test('killAllContainedTargets ends the runner and every process of its commands at once', async () => {
    const workdir = join(await tempBase(cleanup), 'wd');
    const arg = uniqueArg();
    const target = spawnContained(
      `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run-bash --isolation ${level} --workdir ${JSON.stringify(workdir)}`,
      { env: process.env, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    target.child.stdin?.write(line(arg));
    await waitForLive(arg, 2);
    const before = performance.now();
    killAllContainedTargets();
    // The commands sleep for weeks: only their outliving the kill is the fault. A loaded machine
    // (CI: two cores, a load of 10) takes seconds to reap and list processes.
    expect(await liveWith(arg, 10_000)).toEqual([]);
    expect(performance.now() - before).toBeLessThan(10_000);
    await target.close();
  });

  test('SIGTERM to the runner ends it and every process of its commands within a second', async () => {
    const workdir = join(await tempBase(cleanup), 'wd');
    const arg = uniqueArg();
    const runner = spawn(process.execPath, [BIN, 'run-bash', '--isolation', level, '--workdir', workdir], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const exited = new Promise((r) => runner.once('exit', r));
    runner.stdin.write(line(arg));
    await waitForLive(arg, 2);
    const before = performance.now();
    runner.kill('SIGTERM');
    await exited;
    const left = await liveWith(arg, 10_000);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
    // The commands sleep for weeks: only their outliving the runner is the fault. A loaded
    // machine (CI: two cores, a load of 10) takes seconds to reap and list processes.
    expect(performance.now() - before).toBeLessThan(10_000);
  });
});
