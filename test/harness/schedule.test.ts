import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type Check, type CheckSchedule, type Suite, TargetGone } from '../../src/harness/check.js';
import { checkProperty } from '../../src/harness/property.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { dispatch, startOrder } from '../../src/harness/schedule.js';
import { createSlots } from '../../src/harness/slots.js';

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Checks that record how many ordinary checks ran beside each of them. */
function recordingSuite(
  specs: readonly { id: string; ms: number; schedule?: CheckSchedule; gone?: boolean }[],
  concurrent = true,
) {
  let running = 0;
  let most = 0;
  const besideAlone: Record<string, number> = {};
  const startOrderSeen: string[] = [];
  const checks: Check<object>[] = specs.map((spec) => ({
    id: spec.id,
    clause: 'c',
    description: 'd',
    level: 'must',
    basis: 'spec',
    rule: 'A rule of the test.',
    ...(spec.schedule === undefined ? {} : { schedule: spec.schedule }),
    async run() {
      startOrderSeen.push(spec.id);
      const ordinary = spec.schedule !== 'waits';
      if (ordinary) running++;
      most = Math.max(most, running);
      if (spec.schedule === 'alone') besideAlone[spec.id] = running - 1;
      await tick(spec.ms);
      if (spec.schedule === 'alone') besideAlone[spec.id] = Math.max(besideAlone[spec.id] ?? 0, running - 1);
      if (ordinary) running--;
      if (spec.gone === true) throw new TargetGone('the target exited');
    },
  }));
  const suite: Suite<object, object> = {
    name: 'sched',
    description: 'scheduling',
    concurrent,
    checks,
    describeTarget: () => 'x',
    targetArgs: () => [],
    open: async () => ({ close: async () => {} }),
  };
  return { suite, most: () => most, besideAlone, startOrderSeen };
}

describe('startOrder', () => {
  test('checks that wait start first, those that run alone last, catalogue order within each', () => {
    const order = startOrder([{}, { schedule: 'alone' }, { schedule: 'waits' }, {}, { schedule: 'waits' }]);
    expect(order).toEqual([2, 4, 0, 3, 1]);
  });
});

describe('slots', () => {
  test('a waiter for several slots is served before later waiters for one', async () => {
    const slots = createSlots(3);
    await slots.acquire(2);
    const two = slots.acquire(2);
    const one = slots.acquire(1);
    const served: string[] = [];
    void two.then(() => served.push('two'));
    void one.then(() => served.push('one'));
    await tick(5);
    // One slot is free, but the first in line wants two: the later waiter for one waits behind it.
    expect(served).toEqual([]);
    slots.release();
    await tick(5);
    expect(served).toEqual(['two']);
    slots.release(2);
    await tick(5);
    expect(served).toEqual(['two', 'one']);
  });

  test('tryAcquire never overtakes a waiter that could start without the caller', async () => {
    const slots = createSlots(3);
    await slots.acquire(2);
    const two = slots.acquire(2);
    // One slot is free; the waiter wants two of three, so it could start once another holder
    // gives one back: borrowing the free one would hold it up.
    expect(slots.tryAcquire()).toBe(false);
    slots.release();
    await two;
    expect(slots.tryAcquire()).toBe(false);
  });

  test('tryAcquire borrows a free slot while the first in line waits for every slot', async () => {
    const slots = createSlots(2);
    await slots.acquire(); // the caller's own slot
    const all = slots.acquire(2);
    let gotAll = false;
    void all.then(() => {
      gotAll = true;
    });
    // The waiter for every slot needs the caller's own slot anyway.
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    slots.release(); // the borrowed slot
    await tick(5);
    expect(gotAll).toBe(false);
    slots.release(); // the caller's own
    await all;
    expect(gotAll).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    slots.release(2);
    expect(slots.tryAcquire()).toBe(true);
  });
});

describe('dispatch', () => {
  test('never runs more ordinary checks than jobs; checks that wait hold no ordinary slot', async () => {
    let running = 0;
    let most = 0;
    const checks = [{ schedule: 'waits' as const }, {}, {}, {}, {}];
    const started = await dispatch(checks, {
      jobs: 2,
      stopped: () => false,
      start: async (i) => {
        const ordinary = checks[i]?.schedule === undefined;
        if (ordinary) running++;
        most = Math.max(most, running);
        await tick(ordinary ? 20 : 100);
        if (ordinary) running--;
      },
    });
    expect(most).toBe(2);
    expect([...started].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  test('a check that runs last starts once every other check has ended, the waiting ones included', async () => {
    const log: string[] = [];
    const checks = [
      { schedule: 'last' as const },
      { schedule: 'waits' as const },
      {},
      { schedule: 'alone' as const },
    ];
    expect(startOrder(checks)).toEqual([1, 2, 3, 0]);
    let dispatchedAt = -1;
    await dispatch(checks, {
      jobs: 2,
      stopped: () => false,
      onDispatched: () => {
        dispatchedAt = log.length;
      },
      start: async (i) => {
        log.push(`begin ${i}`);
        // The waiting check is the longest: it still runs when the one that runs alone ends.
        await tick(i === 1 ? 120 : 20);
        log.push(`end ${i}`);
      },
    });
    expect(log.indexOf('begin 0')).toBe(log.indexOf('end 1') + 1);
    // The next suite may open once the check that runs alone has asked for its slots, long before the last one.
    expect(dispatchedAt).toBeGreaterThan(0);
    expect(dispatchedAt).toBeLessThan(log.indexOf('end 1'));
  });

  test('with a pool shared between suites, a check that runs alone waits for every slot of it', async () => {
    const shared = createSlots(2);
    await shared.acquire(); // another suite's check
    let began = false;
    const done = dispatch([{ schedule: 'alone' as const }], {
      jobs: 2,
      slots: shared,
      stopped: () => false,
      start: async () => {
        began = true;
      },
    });
    await tick(20);
    expect(began).toBe(false);
    shared.release();
    await done;
    expect(began).toBe(true);
    // Every slot was given back.
    expect(shared.tryAcquire() && shared.tryAcquire()).toBe(true);
  });

  test('more checks that wait than slots do not hold back the ordinary ones; one that runs alone starts after every waiting one started', async () => {
    const checks = [
      { schedule: 'waits' as const },
      { schedule: 'waits' as const },
      { schedule: 'waits' as const },
      {},
      { schedule: 'alone' as const },
    ];
    const events: string[] = [];
    await dispatch(checks, {
      jobs: 1,
      stopped: () => false,
      start: async (i) => {
        events.push(`start ${i}`);
        await tick(checks[i]?.schedule === 'waits' ? 50 : 5);
        events.push(`end ${i}`);
      },
    });
    // One wait slot: the waiting checks run one after another, the ordinary one beside the first.
    expect(events.indexOf('start 3')).toBeLessThan(events.indexOf('end 0'));
    expect(events.indexOf('start 2')).toBeGreaterThan(events.indexOf('end 1'));
    expect(events.indexOf('start 4')).toBeGreaterThan(events.indexOf('start 2'));
  });

  test('waitsAtOnce lets more checks wait at once than there are jobs; ordinary checks still keep to jobs', async () => {
    const checks = [
      { schedule: 'waits' as const },
      { schedule: 'waits' as const },
      { schedule: 'waits' as const },
      {},
      {},
    ];
    let waiting = 0;
    let mostWaiting = 0;
    let ordinary = 0;
    let mostOrdinary = 0;
    await dispatch(checks, {
      jobs: 1,
      waitsAtOnce: 3,
      stopped: () => false,
      start: async (i) => {
        const waits = checks[i]?.schedule === 'waits';
        if (waits) mostWaiting = Math.max(mostWaiting, ++waiting);
        else mostOrdinary = Math.max(mostOrdinary, ++ordinary);
        await tick(waits ? 50 : 5);
        if (waits) waiting--;
        else ordinary--;
      },
    });
    expect(mostWaiting).toBe(3);
    expect(mostOrdinary).toBe(1);
  });

  test("runSuite gives the wait pool the suite's waitsAtOnce, never fewer than jobs", async () => {
    const { suite } = recordingSuite([]);
    let waiting = 0;
    let most = 0;
    const checks: Check<object>[] = [1, 2, 3, 4].map((n) => ({
      id: `s.wait-${n}`,
      clause: 'c',
      description: 'd',
      level: 'must',
      basis: 'spec',
      rule: 'A rule of the test.',
      schedule: 'waits',
      async run() {
        most = Math.max(most, ++waiting);
        await tick(40);
        waiting--;
      },
    }));
    const mostAtOnce = async (waitsAtOnce: number | undefined) => {
      most = 0;
      await runSuite(
        { ...suite, checks, ...(waitsAtOnce === undefined ? {} : { waitsAtOnce }) },
        {},
        { seed: 1, jobs: 2 },
      );
      return most;
    };
    expect(await mostAtOnce(4)).toBe(4);
    expect(await mostAtOnce(undefined)).toBe(2);
    expect(await mostAtOnce(1)).toBe(2);
  });
});

describe('runSuite with jobs', () => {
  const SPECS = [
    { id: 's.a', ms: 60 },
    { id: 's.b', ms: 10 },
    { id: 's.wait', ms: 150, schedule: 'waits' as const },
    { id: 's.c', ms: 30 },
    { id: 's.alone', ms: 40, schedule: 'alone' as const },
    { id: 's.d', ms: 5 },
  ];

  test('results and onResult keep catalogue order while checks finish in another', async () => {
    const { suite, most, besideAlone, startOrderSeen } = recordingSuite(SPECS);
    const reported: string[] = [];
    const result = await runSuite(suite, {}, { seed: 1, jobs: 2, onResult: (r) => reported.push(r.id) });
    const ids = SPECS.map((s) => s.id);
    expect(result.checks.map((c) => c.id)).toEqual(ids);
    expect(reported).toEqual(ids);
    expect(result.checks.every((c) => c.status === 'pass')).toBe(true);
    expect(result.jobs).toBe(2);
    expect(most()).toBe(2);
    expect(besideAlone['s.alone']).toBe(0);
    expect(startOrderSeen[0]).toBe('s.wait');
    expect(startOrderSeen.at(-1)).toBe('s.alone');
  });

  test('jobs 1 runs one check at a time in catalogue order', async () => {
    const { suite, most, startOrderSeen } = recordingSuite(SPECS);
    const result = await runSuite(suite, {}, { seed: 1, jobs: 1 });
    expect(result.jobs).toBe(1);
    expect(most()).toBe(1);
    expect(startOrderSeen).toEqual(SPECS.map((s) => s.id));
  });

  test('a suite that does not declare its checks concurrent runs them one at a time whatever jobs says', async () => {
    const { suite, most } = recordingSuite(SPECS, false);
    const result = await runSuite(suite, {}, { seed: 1, jobs: 4 });
    expect(result.jobs).toBe(1);
    expect(most()).toBe(1);
  });

  test('a target gone stops the run as with jobs 1: the checks after it in catalogue order are not run, even one that ran beside it', async () => {
    const { suite } = recordingSuite([
      { id: 'g.a', ms: 30 },
      { id: 'g.b', ms: 5, gone: true },
      { id: 'g.c', ms: 5 },
      { id: 'g.d', ms: 5 },
    ]);
    const reported: string[] = [];
    const result = await runSuite(suite, {}, { seed: 1, jobs: 2, onResult: (r) => reported.push(r.id) });
    expect(reported).toEqual(['g.a', 'g.b', 'g.c', 'g.d']);
    expect(result.checks.map((c) => [c.id, c.status, c.skipKind ?? ''])).toEqual([
      ['g.a', 'pass', ''],
      ['g.b', 'fail', ''],
      ['g.c', 'skip', 'not-run'],
      ['g.d', 'skip', 'not-run'],
    ]);
    expect(result.stopped?.message).toContain('during g.b');
  });

  test('a property-based check runs its cases on the job slots no other check holds, within jobs', async () => {
    let running = 0;
    let most = 0;
    const property: Check<object> = {
      id: 'p.property',
      clause: 'c',
      description: 'd',
      level: 'must',
      basis: 'spec',
      rule: 'A rule of the test.',
      async run(_ctx, env) {
        await checkProperty(env, fc.integer(), async () => {
          running++;
          most = Math.max(most, running);
          await tick(2);
          running--;
        });
      },
    };
    const suite: Suite<object, object> = {
      name: 'prop',
      description: 'property cases',
      concurrent: true,
      checks: [property],
      describeTarget: () => 'x',
      targetArgs: () => [],
      open: async () => ({ close: async () => {} }),
    };
    const result = await runSuite(suite, {}, { seed: 1, jobs: 3, runs: 30 });
    expect(result.checks[0]?.status).toBe('pass');
    expect(most).toBe(3);
    most = 0;
    await runSuite(suite, {}, { seed: 1, jobs: 1, runs: 30 });
    expect(most).toBe(1);
  });
});
