import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type CheckEnv, CheckFailure, NotExercised } from '../../src/harness/check.js';
import { checkProperty, PropertyFailure } from '../../src/harness/property.js';
import { createSlots } from '../../src/harness/slots.js';
import { checkEnv } from '../check-env.js';

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function env(slots?: ReturnType<typeof createSlots>): CheckEnv {
  return checkEnv({ seed: 99, runs: 40, ...(slots === undefined ? {} : { slots }) });
}

async function outcome(
  e: CheckEnv,
  predicate: (v: number) => Promise<void>,
  options: { maxShrinkRuns?: number } = {},
) {
  try {
    await checkProperty(e, fc.integer({ min: 0, max: 1000 }), predicate, options);
    return { passed: true as const };
  } catch (error) {
    if (!(error instanceof PropertyFailure)) throw error;
    return { passed: false as const, message: error.message, fastCheck: error.counterexample.fastCheck };
  }
}

describe('property cases run concurrently on borrowed job slots', () => {
  test('the verdict, the counterexample, its seed and path are those of a search one case at a time', async () => {
    // Big values fail; a failing case answers at once while the others take a while, so a
    // later case fails before an earlier one has finished: the earliest failure must still win.
    const predicate = async (v: number) => {
      await tick(v > 600 ? 0 : 15);
      if (v > 600) throw new CheckFailure(`${v} is over 600`, '<= 600', String(v));
    };
    const sequential = await outcome(env(), predicate);
    const concurrent = await outcome(env(createSlots(4)), predicate);
    expect(sequential.passed).toBe(false);
    expect(concurrent).toEqual(sequential);
  });

  test('more than one case runs at once when slots are free, and the slots are all given back', async () => {
    const slots = createSlots(3);
    let running = 0;
    let most = 0;
    const result = await outcome(env(slots), async () => {
      running++;
      most = Math.max(most, running);
      await tick(5);
      running--;
    });
    expect(result.passed).toBe(true);
    // The check's own slot is not taken from the pool in this test: 3 borrowed + its own.
    expect(most).toBe(4);
    expect(slots.tryAcquire() && slots.tryAcquire() && slots.tryAcquire()).toBe(true);
  });

  test('no slot free: the cases run one at a time', async () => {
    const slots = createSlots(1);
    await slots.acquire();
    let running = 0;
    let most = 0;
    await outcome(env(slots), async () => {
      running++;
      most = Math.max(most, running);
      await tick(1);
      running--;
    });
    expect(most).toBe(1);
  });

  test('a check that runs alone waiting for every slot does not keep the cases to one at a time', async () => {
    const slots = createSlots(2);
    await slots.acquire(); // the property check's own slot
    const alone = slots.acquire(2);
    let aloneBegan = false;
    let running = 0;
    let most = 0;
    void alone.then(() => {
      aloneBegan = true;
    });
    const result = await outcome(env(slots), async () => {
      running++;
      most = Math.max(most, running);
      await tick(1);
      running--;
      // The check that runs alone starts only after this check and what it borrowed.
      expect(aloneBegan).toBe(false);
    });
    expect(result.passed).toBe(true);
    expect(most).toBe(2);
    slots.release(); // the check ends
    await alone;
    expect(aloneBegan).toBe(true);
  });

  test('a shrink budget gives the same counterexample with the cases run one at a time or concurrently', async () => {
    // Shrinking stops after 2 more values; how far it got decides the counterexample.
    const triedAfterFailure: number[] = [];
    const run = async (slots?: ReturnType<typeof createSlots>) => {
      let failed = false;
      let tried = 0;
      const result = await outcome(
        env(slots),
        async (v) => {
          if (failed) tried++;
          await tick(v > 300 ? 0 : 3);
          if (v > 300) {
            failed = true;
            throw new CheckFailure(`${v} is over 300`);
          }
        },
        { maxShrinkRuns: 2 },
      );
      triedAfterFailure.push(tried);
      return result;
    };
    const sequential = await run();
    const concurrent = await run(createSlots(4));
    expect(sequential.passed).toBe(false);
    expect(concurrent).toEqual(sequential);
    // Past the failing case, only the 2 shrinks the budget allows were really tried.
    expect(triedAfterFailure[0]).toBe(2);
  });

  test('a case that fails once and passes when run again is still reported, unshrunk', async () => {
    const seen = new Set<number>();
    const result = await outcome(env(createSlots(2)), async (v) => {
      if (v > 500 && !seen.has(v)) {
        seen.add(v);
        throw new CheckFailure('flaky failure');
      }
    });
    expect(result.passed).toBe(false);
    expect(result.message).toMatch(
      /flaky failure \(property failed after \d+ runs \(the case passed when run again/,
    );
  });
});

describe('a case that could not be judged ends the property without shrinking', () => {
  for (const [how, slots] of [
    ['one case at a time', undefined],
    ['on borrowed slots', 4],
  ] as const) {
    test(`${how}: the NotExercised of the first such case is the outcome, and no case runs after it to shrink`, async () => {
      let calls = 0;
      let firstUnjudged: number | undefined;
      const e = env(slots === undefined ? undefined : createSlots(slots));
      const error = await checkProperty(e, fc.integer({ min: 0, max: 1000 }), async (v) => {
        calls++;
        if (v > 300) {
          firstUnjudged ??= calls;
          throw new NotExercised(`the target was busy at ${v}`);
        }
      }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(NotExercised);
      expect(firstUnjudged).toBeDefined();
      // Before, fast-check shrank it: every smaller value over 300 was sent again.
      expect(calls).toBeLessThanOrEqual((firstUnjudged ?? 0) + (slots ?? 1));
    });
  }
});

describe('a case that could not be judged while a failure is shrunk leaves that failure standing', () => {
  // One slot to borrow: at most two cases in flight before the first failure is known, so the
  // third failing value is met when that failure is run again by its path or shrunk.
  for (const [how, slots] of [
    ['one case at a time', undefined],
    ['on a borrowed slot', 1],
  ] as const) {
    test(`${how}: the rule broken is the verdict, not the skip met shrinking it`, async () => {
      // Values of 100 and over break the rule; the third of them tried is met by a busy target.
      let failing = 0;
      let callsAfterSkip = 0;
      let skipped = false;
      const result = await outcome(env(slots === undefined ? undefined : createSlots(slots)), async (v) => {
        if (skipped) callsAfterSkip++;
        if (v < 100) return;
        if (++failing === 3) {
          skipped = true;
          throw new NotExercised('the service answered 429 three times');
        }
        throw new CheckFailure(`${v} is 100 or more`, 'under 100', String(v));
      });
      expect(result.passed).toBe(false);
      expect(result.message).toMatch(/^\d+ is 100 or more \(property failed after \d+ runs/);
      // Shrinking ended there: no value was sent after the skip.
      expect(callsAfterSkip).toBe(0);
    });
  }

  test('on borrowed slots: a failing case that cannot be judged when run again is reported unshrunk, saying so', async () => {
    let calls = 0;
    const result = await outcome(env(createSlots(4)), async (v) => {
      if (v < 100) return;
      if (++calls > 1) throw new NotExercised('the service answered 529 three times');
      throw new CheckFailure(`${v} is 100 or more`, 'under 100', String(v));
    });
    expect(result.passed).toBe(false);
    expect(result.message).toMatch(
      /could not be judged when run again to shrink it: the service answered 529 three times/,
    );
  });
});
