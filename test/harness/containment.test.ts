import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import { ownCgroupDir } from '../../src/harness/containment/cgroup.js';
import {
  CONTAINMENT_METHODS,
  type ContainedTarget,
  type ContainmentMethod,
  chooseContainment,
  containmentInfo,
  killAllContainedTargets,
  liveContainedTargets,
  METHOD_VARIABLE,
  resetContainment,
  spawnContained,
} from '../../src/harness/containment/index.js';
import { isAlive, killPid, readCommandLine } from '../../src/harness/containment/procfs.js';
import { liveNow, liveWith, stillAlive, waitForLive } from './process-helpers.js';

const original = process.env[METHOD_VARIABLE];
afterAll(() => {
  if (original === undefined) delete process.env[METHOD_VARIABLE];
  else process.env[METHOD_VARIABLE] = original;
  resetContainment();
});

function useMethod(method: ContainmentMethod): void {
  process.env[METHOD_VARIABLE] = method;
  resetContainment();
}

/** A unique `sleep` argument, so that the test finds its own processes only. */
function marker(): string {
  return `3${randomBytes(3).readUIntBE(0, 3) % 100}.${randomBytes(4).readUInt32BE(0)}`;
}

async function exited(target: ContainedTarget): Promise<number | null> {
  return new Promise((resolve) => {
    if (target.child.exitCode !== null) resolve(target.child.exitCode);
    else target.child.once('exit', (code) => resolve(code));
  });
}

function start(command: string): ContainedTarget {
  return spawnContained(command, { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

test('the strongest method is chosen by default: a cgroup where this process may make one (root here)', () => {
  delete process.env[METHOD_VARIABLE];
  resetContainment();
  const info = containmentInfo();
  expect(CONTAINMENT_METHODS).toContain(info.method);
  if (process.getuid?.() === 0) expect(info.method).toBe('cgroup');
});

test('an unknown forced method is refused with the choices named', () => {
  process.env[METHOD_VARIABLE] = 'jail';
  resetContainment();
  expect(() => chooseContainment()).toThrow(/cgroup, pid-namespace, tag/);
});

describe.each(CONTAINMENT_METHODS)('containment by %s', (method) => {
  test('a setsid escapee is reported with its pid and command line, and is gone after the case', async () => {
    useMethod(method);
    const arg = marker();
    const target = start(`setsid sleep ${arg} </dev/null >/dev/null 2>&1 & sleep 0.2; echo started`);
    expect(target.method).toBe(method);
    const escapee = await waitForLive(arg);
    expect(await exited(target)).toBe(0);
    const survivors = await target.close();
    expect(survivors.map((s) => s.pid)).toEqual([escapee]);
    expect(survivors[0]?.command).toBe(`sleep ${arg}`);
    expect(isAlive(escapee)).toBe(false);
  });

  test('a double-fork daemon (fork, setsid, fork) is reported and killed', async () => {
    useMethod(method);
    const arg = marker();
    const target = start(`(setsid sh -c 'sleep ${arg} & exit 0' </dev/null >/dev/null 2>&1 &); sleep 0.2`);
    const daemon = await waitForLive(arg);
    await exited(target);
    const survivors = await target.close();
    expect(survivors.map((s) => s.pid)).toEqual([daemon]);
    expect(isAlive(daemon)).toBe(false);
  });

  test('the target runs as sh -c CMD with its own uid, and its pid agrees with the /proc it sees', async () => {
    useMethod(method);
    const target = start('echo "$$ $(id -u)"; tr "\\0" " " < /proc/$$/cmdline; echo');
    let out = '';
    target.child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    // 'exit' may come before the last of stdout was read: wait for its end too.
    const ended = new Promise((r) => target.child.stdout?.once('end', r));
    await exited(target);
    await ended;
    await target.close();
    const [ids, cmdline] = out.split('\n');
    const [pid, uid] = (ids ?? '').split(' ').map(Number);
    // In a PID namespace the target is PID 2 (init is 1); elsewhere it is the process the harness started.
    expect(pid).toBe(method === 'pid-namespace' ? 2 : target.child.pid);
    expect(uid).toBe(process.getuid?.());
    expect(cmdline).toMatch(/^sh -c echo "\$\$ \$\(id -u\)"/);
  });

  test('killAllContainedTargets kills a running target and its escapees synchronously', async () => {
    useMethod(method);
    const arg = marker();
    const target = start(`setsid sleep ${arg} </dev/null >/dev/null 2>&1 & sleep ${arg}`);
    await waitForLive(arg, 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(liveContainedTargets()).toBeGreaterThanOrEqual(1);
    const before = performance.now();
    expect(killAllContainedTargets()).toBeGreaterThanOrEqual(1);
    await exited(target);
    // The target and its escapee sleep for weeks: only their outliving the kill is the fault. A
    // loaded machine (CI: two cores, a load of 10) takes seconds to reap and list processes.
    expect(await liveWith(arg, 10_000)).toEqual([]);
    expect(performance.now() - before).toBeLessThan(10_000);
    await target.close();
    expect(readCommandLine(target.child.pid as number)).toBe('');
  });
});

/**
 * A harness of its own (a child process using dist/) that starts one target leaving a setsid
 * escapee, `sleep <arg>`, then prints the pids of its children that are reapers.
 */
function harnessWithTarget(method: ContainmentMethod, arg: string, then: 'wait' | 'exit') {
  const module = new URL('../../dist/harness/containment/index.js', import.meta.url).href;
  const script = `import { readFileSync } from 'node:fs';
import { spawnContained } from ${JSON.stringify(module)};
const target = spawnContained('setsid sleep ${arg} </dev/null >/dev/null 2>&1 & sleep ${arg}', { env: process.env, stdio: ['ignore', 'ignore', 'ignore'] });
const children = readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8').trim().split(' ').map(Number);
const reapers = children.filter((pid) => readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').includes('wirecheck-reaper'));
console.log(JSON.stringify(reapers));
${then === 'exit' ? 'setTimeout(() => target.close().then(() => process.exit(0)), 300);' : 'setInterval(() => {}, 1000);'}`;
  const harness = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, [METHOD_VARIABLE]: method },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reapers = new Promise<number[]>((resolve) => {
    let out = '';
    harness.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
    });
  });
  const exited = new Promise<number | null>((resolve) => harness.once('exit', (code) => resolve(code)));
  // A failed assertion must not leave the harness, or the targets it failed to end, running.
  onTestFinished(() => {
    harness.kill('SIGKILL');
    for (const pid of liveNow(arg)) killPid(pid);
  });
  return { harness, reapers, exited };
}

describe.each(CONTAINMENT_METHODS)('containment by %s, when the harness dies', (method) => {
  test('a target and its escapee die with the harness even when the harness is killed by SIGKILL', async () => {
    const arg = marker();
    const { harness, reapers } = harnessWithTarget(method, arg, 'wait');
    await waitForLive(arg, 2);
    const reaper = await reapers;
    // The reaper holds nothing of the harness's environment but PATH.
    for (const pid of reaper) {
      const names = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((e) => e.split('=')[0]);
      expect(names).toEqual(['PATH']);
    }
    harness.kill('SIGKILL');
    expect(await liveWith(arg, 3000)).toEqual([]);
    // cgroup and tag need a reaper (a PID namespace's init watches a lifeline of its own).
    expect(reaper).toHaveLength(method === 'pid-namespace' ? 0 : 1);
    // The reaper does its work and goes, and with it the run's cgroup.
    await expect.poll(() => stillAlive(reaper), { timeout: 3000, interval: 20 }).toEqual([]);
    if (method === 'cgroup')
      expect(existsSync(join(ownCgroupDir() ?? '', `wirecheck-${harness.pid}`))).toBe(false);
  });

  test('a harness that ends normally leaves no reaper running', async () => {
    const arg = marker();
    const { reapers, exited } = harnessWithTarget(method, arg, 'exit');
    const reaper = await reapers;
    expect(await exited).toBe(0);
    expect(await liveWith(arg, 1000)).toEqual([]);
    await expect.poll(() => stillAlive(reaper), { timeout: 1000, interval: 20 }).toEqual([]);
  });
});
