import { describe, expect, test } from 'vitest';
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
