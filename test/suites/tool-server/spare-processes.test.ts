import { describe, expect, test } from 'vitest';
import { countingStarts, noteTargetStart } from '../../../src/harness/target-starts.js';
import type { ServerProcess } from '../../../src/suites/tool-server/process.js';
import { SpareProcesses } from '../../../src/suites/tool-server/spare-processes.js';

/** A stand-in process: `n` says which spawn it was; `end()` makes it exit. */
function fakeProcess(n: number) {
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let kills = 0;
  const proc = {
    n,
    exit: () => ended,
    kill: async () => {
      kills += 1;
      ended ??= { code: null, signal: 'SIGTERM' };
    },
    end: () => {
      ended = { code: 0, signal: null };
    },
    kills: () => kills,
  };
  return proc;
}

function pool(size: number) {
  const spawned: ReturnType<typeof fakeProcess>[] = [];
  const spares = new SpareProcesses(() => {
    const p = fakeProcess(spawned.length + 1);
    spawned.push(p);
    return p as unknown as ServerProcess;
  }, size);
  const take = () => spares.take() as unknown as ReturnType<typeof fakeProcess>;
  return { spares, spawned, take };
}

describe('spare stdio server processes', () => {
  test('none are started before fill; then a take hands out the oldest spare and starts the next', () => {
    const { spares, spawned, take } = pool(2);
    expect(spawned).toHaveLength(0);
    spares.fill();
    expect(spawned.map((p) => p.n)).toEqual([1, 2]);
    expect(take().n).toBe(1);
    expect(spawned).toHaveLength(3);
    expect(take().n).toBe(2);
    expect(take().n).toBe(3);
    expect(spawned).toHaveLength(5);
  });

  test('before the first fill (the preflight session) a take starts only the process it hands out', () => {
    const { spares, spawned, take } = pool(2);
    expect(take().n).toBe(1);
    expect(spawned).toHaveLength(1);
    spares.fill();
    expect(spawned).toHaveLength(3);
  });

  test('a spare that exited while it waited is stopped and passed over, never handed out', () => {
    const { spares, spawned, take } = pool(2);
    spares.fill();
    spawned[0]!.end();
    spawned[1]!.end();
    const got = take();
    expect(got.n).toBe(3);
    expect(got.exit()).toBeUndefined();
    expect(spawned[0]!.kills()).toBe(1);
    expect(spawned[1]!.kills()).toBe(1);
  });

  test('size 0 (--jobs 1) starts each process when it is asked for, and nothing ahead', () => {
    const { spares, spawned, take } = pool(0);
    spares.fill();
    expect(spawned).toHaveLength(0);
    expect(take().n).toBe(1);
    expect(spawned).toHaveLength(1);
  });

  test('close stops every spare still waiting and no spare is started after it', async () => {
    const { spares, spawned, take } = pool(2);
    spares.fill();
    const taken = take();
    await spares.close();
    expect(spawned.filter((p) => p !== taken).every((p) => p.kills() === 1)).toBe(true);
    expect(taken.kills()).toBe(0);
    const count = spawned.length;
    take();
    expect(spawned).toHaveLength(count + 1);
  });
});

describe("spares and the run's start count", () => {
  test('a spare is counted when a check takes it, not when it starts; one never taken is not counted', async () => {
    const counter = { count: 0 };
    await countingStarts(counter, async () => {
      const spares = new SpareProcesses(() => {
        noteTargetStart(); // what spawnContained does for every process it starts
        return fakeProcess(0) as unknown as ServerProcess;
      }, 2);
      spares.fill();
      expect(counter.count).toBe(0);
      spares.take();
      expect(counter.count).toBe(1);
      spares.take();
      expect(counter.count).toBe(2);
      await spares.close();
    });
    expect(counter.count).toBe(2);
  });
});
