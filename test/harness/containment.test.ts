import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
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
import { isAlive, readCommandLine } from '../../src/harness/containment/procfs.js';
import { liveWith, waitForLive } from './process-helpers.js';

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

  test('a background job left in the target process group is killed without being reported', async () => {
    useMethod(method);
    const arg = marker();
    const target = start(`sleep ${arg} >/dev/null 2>&1 & echo started`);
    const job = await waitForLive(arg);
    await exited(target);
    expect(await target.close()).toEqual([]);
    expect(isAlive(job)).toBe(false);
  });

  test('the target runs as sh -c CMD with its own uid, and its pid agrees with the /proc it sees', async () => {
    useMethod(method);
    const target = start('echo "$$ $(id -u)"; tr "\\0" " " < /proc/$$/cmdline; echo');
    let out = '';
    target.child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await exited(target);
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
    expect(await liveWith(arg, 1000)).toEqual([]);
    expect(performance.now() - before).toBeLessThan(1000);
    await target.close();
    expect(readCommandLine(target.child.pid as number)).toBe('');
  });
});

test('in a PID namespace, a target dies with the harness even when the harness is killed by SIGKILL', async () => {
  const arg = marker();
  const module = new URL('../../dist/harness/containment/index.js', import.meta.url).href;
  const script = `import { spawnContained } from ${JSON.stringify(module)};
spawnContained('setsid sleep ${arg} </dev/null >/dev/null 2>&1 & sleep ${arg}', { env: process.env, stdio: ['ignore', 'ignore', 'ignore'] });
setInterval(() => {}, 1000);`;
  const harness = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, [METHOD_VARIABLE]: 'pid-namespace' },
    stdio: 'ignore',
  });
  await waitForLive(arg, 2);
  harness.kill('SIGKILL');
  expect(await liveWith(arg, 2000)).toEqual([]);
});
