import { expect, test } from 'vitest';
import { waitedChildrenCpuMs } from '../../src/bench/children-cpu.js';
import { containmentInfo, withSpawner } from '../../src/harness/containment/index.js';
import { isAlive } from '../../src/harness/containment/procfs.js';
import { runCommand } from '../../src/harness/run-command.js';

const env = { PATH: process.env.PATH };
const parentOf = async (): Promise<number> =>
  Number((await runCommand('echo $PPID', { env, timeoutMs: 5000 })).stdout.trim());
// The pid-namespace containment hands the target an extra pipe: the harness starts those itself.
const spawnerUsed = () => containmentInfo().method !== 'pid-namespace';

test(
  'targets that print and exit at once, many at a time, lose no byte of their output',
  () =>
    withSpawner(async () => {
      const runs = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          runCommand(i % 2 === 0 ? `printf ${i}` : `head -c 300000 /dev/zero | tr '\\0' a; printf ${i} >&2`, {
            env,
            timeoutMs: 20_000,
          }),
        ),
      );
      runs.forEach((run, i) => {
        expect(run.exitCode).toBe(0);
        if (i % 2 === 0) expect(run.stdout).toBe(String(i));
        else {
          expect(run.stdout).toBe('a'.repeat(300_000));
          expect(run.stderr).toBe(String(i));
        }
      });
    }),
  60_000,
);

test('a command that cannot start is reported as such through the spawner too', () =>
  withSpawner(async () => {
    const nul = await runCommand('echo a\0b', { env, timeoutMs: 5000 });
    expect(nul.spawnError).toBeInstanceOf(Error);
    const noDir = await runCommand('true', { env, timeoutMs: 5000, cwd: '/nonexistent/wirecheck-dir' });
    expect(noDir.spawnError).toMatchObject({ code: 'ENOENT' });
    expect((await runCommand('exit 4', { env, timeoutMs: 5000 })).exitCode).toBe(4);
  }));

test(
  'a spawner that is killed ends its targets as far as the harness can tell, and the next start gets a new one',
  () =>
    withSpawner(async () => {
      const first = await parentOf();
      if (!spawnerUsed()) return expect(first).toBe(process.pid);
      const running = runCommand('sleep 0.4; echo late', { env, timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 150));
      process.kill(first, 'SIGKILL');
      const run = await running;
      // Its output still came (the pipes are the harness's); its exit status went with the spawner.
      expect(run.stdout).toBe('late\n');
      expect(run.exitCode).toBeNull();
      const second = await parentOf();
      expect(second).not.toBe(first);
      expect(second).not.toBe(process.pid);
    }),
  20_000,
);

test(
  'a spawner a target stopped (kill -STOP $PPID) is killed at the next start, which is made without it',
  () =>
    withSpawner(async () => {
      const first = await parentOf();
      if (!spawnerUsed()) return expect(first).toBe(process.pid);
      process.kill(first, 'SIGSTOP');
      const run = await runCommand('echo after', { env, timeoutMs: 20_000 });
      expect(run.stdout).toBe('after\n');
      await expect.poll(() => isAlive(first), { timeout: 5000, interval: 50 }).toBe(false);
      // The next start gets a new spawner.
      const second = await parentOf();
      expect(second).not.toBe(first);
    }),
  30_000,
);

test('the spawner ends with the last run that holds it, and the CPU of its targets is then the harness\u2019s waited-for CPU', async () => {
  const before = waitedChildrenCpuMs();
  let spawner = 0;
  await Promise.all([
    withSpawner(async () => {
      spawner = await parentOf();
      await runCommand('i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done', { env, timeoutMs: 60_000 });
    }),
    withSpawner(() => new Promise((r) => setTimeout(r, 50))),
  ]);
  if (!spawnerUsed()) return;
  expect(spawner).not.toBe(process.pid);
  expect(isAlive(spawner)).toBe(false);
  const after = waitedChildrenCpuMs();
  if (before !== undefined && after !== undefined) expect(after - before).toBeGreaterThan(100);
}, 60_000);
