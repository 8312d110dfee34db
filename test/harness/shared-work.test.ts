import { describe, expect, test } from 'vitest';
import type { Check, Suite } from '../../src/harness/check.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { SharedWork } from '../../src/harness/shared-work.js';

function pending(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** An `idle` that counts the waits it is given. */
function countingIdle() {
  const counted = { waits: 0 };
  return {
    counted,
    idle: <T>(work: Promise<T>) => {
      counted.waits++;
      return work;
    },
  };
}

describe('SharedWork', () => {
  test('the work is made once; a check that asks while it is under way waits through idle, one that asks later does not', async () => {
    const work = new SharedWork();
    let made = 0;
    const gate = pending();
    const make = async () => {
      made++;
      await gate.promise;
      return 'session';
    };
    const first = countingIdle();
    const during = countingIdle();
    const after = countingIdle();
    const a = work.get('s', make, first);
    const b = work.get('s', make, during);
    gate.resolve();
    expect(await a).toBe('session');
    expect(await b).toBe('session');
    expect(await work.get('s', make, after)).toBe('session');
    expect(made).toBe(1);
    expect([first.counted.waits, during.counted.waits, after.counted.waits]).toEqual([0, 1, 0]);
    expect(work.all()).toHaveLength(1);
  });

  test('work that fails is not made again, and every asker gets its failure', async () => {
    const work = new SharedWork();
    let made = 0;
    const make = async () => {
      made++;
      throw new Error('the runner could not start');
    };
    await expect(work.get('s', make)).rejects.toThrow('could not start');
    await expect(work.get('s', make, countingIdle())).rejects.toThrow('could not start');
    expect(made).toBe(1);
  });
});

describe('runSuite: a check waiting on shared work lends its job slot', () => {
  test('with 2 jobs, a third check runs while one check makes the work and another waits for it', async () => {
    // The work ends only once the third check has started: with the waiting check holding its
    // slot, the third could not start before the two ended, and all three would hit their budget.
    const thirdStarted = pending();
    const ctx = { work: new SharedWork() };
    const check = (id: string, run: Check<typeof ctx>['run']): Check<typeof ctx> => ({
      id,
      clause: 'c',
      description: 'd',
      level: 'must',
      basis: 'spec',
      rule: 'A rule of the test.',
      timeoutMs: 2000,
      run,
    });
    const shared = (c: typeof ctx, env: Parameters<Check<typeof ctx>['run']>[1]) =>
      c.work.get('session', () => thirdStarted.promise, env);
    const suite: Suite<object, typeof ctx> = {
      name: 'lend',
      description: 'slot lending',
      concurrent: true,
      checks: [
        check('lend.maker', shared),
        check('lend.waiter', shared),
        check('lend.third', async () => thirdStarted.resolve()),
      ],
      describeTarget: () => 'x',
      targetArgs: () => [],
      open: async () => ({ ...ctx, close: async () => {} }),
    };
    const result = await runSuite(suite, {}, { seed: 1, jobs: 2 });
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['lend.maker', 'pass'],
      ['lend.waiter', 'pass'],
      ['lend.third', 'pass'],
    ]);
  });
});
