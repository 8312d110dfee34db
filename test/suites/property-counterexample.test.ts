import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type CheckEnv,
  CheckFailure,
  NotExercised,
  type PropertyReplay,
  TargetGone,
} from '../../src/harness/check.js';
import { checkProperty, PropertyFailure } from '../../src/harness/property.js';
import type { Evidence } from '../../src/harness/results.js';
import { checkEnv } from '../check-env.js';

function envOf(replay?: PropertyReplay): CheckEnv {
  return checkEnv({ seed: 4242, runs: 100, ...(replay === undefined ? {} : { replay }) });
}

const EVIDENCE: Evidence = {
  kind: 'frames',
  title: 'the stream',
  frames: [{ atMs: 0, event: 'ping', data: '{"type":"ping"}' }],
  mark: 0,
};

const arbPair = fc.record({ size: fc.integer({ min: 0, max: 10_000 }), text: fc.string() });

/** Fails for sizes over 500 with non-empty text, with evidence attached. */
async function brokenRule(value: { size: number; text: string }): Promise<void> {
  if (value.size > 500 && value.text.length > 0) {
    throw new CheckFailure(`size ${value.size} broke the rule`, 'at most 500', String(value.size), EVIDENCE);
  }
}

async function failureOf(run: Promise<void>): Promise<PropertyFailure> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PropertyFailure);
  return error as PropertyFailure;
}

describe('checkProperty: a failed property hands its shrunk counterexample to the harness', () => {
  test("the inner failure's expected, actual and evidence survive", async () => {
    const failure = await failureOf(checkProperty(envOf(), arbPair, brokenRule));
    expect(failure.expected).toBe('at most 500');
    expect(failure.actual).toBe('501');
    expect(failure.evidence).toEqual(EVIDENCE);
    expect(failure.message).toMatch(/^size 501 broke the rule \(property failed after \d+ runs, shrunk/);
  });

  test('the shrunk value is kept as JSON, with the fast-check seed, path and property index', async () => {
    const { counterexample } = await failureOf(checkProperty(envOf(), arbPair, brokenRule));
    expect(counterexample.json).toEqual({ value: { size: 501, text: expect.stringMatching(/^.$/u) } });
    expect(counterexample.fastCheck.seed).toBe(4242);
    expect(counterexample.fastCheck.path).toMatch(/^\d+(:\d+)*$/);
    expect(counterexample.fastCheck.property).toBe(0);
    expect(counterexample.replayed).toBe(false);
  });

  test('a value JSON would change (undefined, -0, bigint) is kept as fast-check text only', async () => {
    const arb = fc.record({ n: fc.bigInt({ min: 0n, max: 1000n }), gone: fc.constant(undefined) });
    const { counterexample } = await failureOf(
      checkProperty(envOf(), arb, async ({ n }) => {
        if (n > 10n) throw new CheckFailure('too big');
      }),
    );
    expect(counterexample.json).toBeUndefined();
    expect(counterexample.text).toBe('{"n":11n,"gone":undefined}');
  });
});

describe('checkProperty with a replay runs exactly the saved case', () => {
  test('one run, with a value equal to the saved counterexample, failing the same way', async () => {
    const { counterexample } = await failureOf(checkProperty(envOf(), arbPair, brokenRule));
    const seen: unknown[] = [];
    const replayed = await failureOf(
      checkProperty(envOf({ ...counterexample.fastCheck }), arbPair, async (v) => {
        seen.push(v);
        await brokenRule(v);
      }),
    );
    expect(seen).toEqual([counterexample.json?.value]);
    expect(replayed.counterexample.replayed).toBe(true);
    expect(replayed.counterexample.fastCheck).toEqual(counterexample.fastCheck);
    expect(replayed.message).toMatch(/^size 501 broke the rule \(replayed the saved counterexample;/);
    expect(replayed.evidence).toEqual(EVIDENCE);
  });

  test('a value kept only as text is regenerated from seed and path', async () => {
    const arb = fc.record({ n: fc.bigInt({ min: 0n, max: 1000n }), gone: fc.constant(undefined) });
    const rule = async ({ n }: { n: bigint }) => {
      if (n > 10n) throw new CheckFailure('too big');
    };
    const { counterexample } = await failureOf(checkProperty(envOf(), arb, rule));
    const seen: string[] = [];
    await failureOf(
      checkProperty(envOf({ ...counterexample.fastCheck }), arb, async (v) => {
        seen.push(fc.stringify(v));
        await rule(v);
      }),
    );
    expect(seen).toEqual([counterexample.text]);
  });

  test('the replay passes once the target is fixed, still running one case', async () => {
    const { counterexample } = await failureOf(checkProperty(envOf(), arbPair, brokenRule));
    let runs = 0;
    await checkProperty(envOf({ ...counterexample.fastCheck }), arbPair, async () => {
      runs++;
    });
    expect(runs).toBe(1);
  });

  test('when seed and path generate another value now, the saved JSON value is the case', async () => {
    const seen: unknown[] = [];
    const saved = { size: 9999, text: 'saved' };
    const replay: PropertyReplay = { seed: 1, path: '0', property: 0, value: { json: saved } };
    const failure = await failureOf(
      checkProperty(envOf(replay), arbPair, async (v) => {
        seen.push(v);
        await brokenRule(v);
      }),
    );
    expect(seen).toEqual([saved]);
    expect(failure.counterexample.json).toEqual({ value: saved });
    expect(failure.message).toContain('seed and path now generate another value');
  });

  test("the case belongs to one checkProperty call of the check: the check's other properties are skipped", async () => {
    const env = envOf();
    await checkProperty(env, fc.nat(), async () => {});
    const { counterexample } = await failureOf(checkProperty(env, arbPair, brokenRule));
    expect(counterexample.fastCheck.property).toBe(1);
    const replayEnv = envOf({ ...counterexample.fastCheck });
    let firstRuns = 0;
    await checkProperty(replayEnv, fc.nat(), async () => {
      firstRuns++;
    });
    const replayed = await failureOf(checkProperty(replayEnv, arbPair, brokenRule));
    expect(firstRuns).toBe(0);
    expect(replayed.counterexample.json).toEqual(counterexample.json);
  });
});

describe('checkProperty with labels: every failing label is reported', () => {
  const cases = fc.oneof(
    fc.record({ label: fc.constant('a'), n: fc.integer({ min: 0, max: 100 }) }),
    fc.record({ label: fc.constant('b'), n: fc.integer({ min: 0, max: 100 }) }),
    fc.record({ label: fc.constant('c'), n: fc.integer({ min: 0, max: 100 }) }),
  );

  test('two failing labels of three are both named, each with its own counterexample', async () => {
    const failure = await failureOf(
      checkProperty(
        envOf(),
        cases,
        async ({ label, n }) => {
          if (label !== 'b' && n > 10) throw new CheckFailure(`${label} broke at ${n}`);
        },
        { labelOf: (v) => v.label },
      ),
    );
    expect(failure.labels?.map((l) => l.label).sort()).toEqual(['a', 'c']);
    expect(failure.message).toMatch(
      /^2 labels fail: \[(a|c)\] (a|c) broke at 11 .*; \[(a|c)\] (a|c) broke at 11 /,
    );
    expect(failure.counterexample.json?.value).toMatchObject({ n: 11 });
  });

  test('one failing label is reported as a plain property failure', async () => {
    const failure = await failureOf(
      checkProperty(
        envOf(),
        cases,
        async ({ label }) => {
          if (label === 'c') throw new CheckFailure('c is refused');
        },
        { labelOf: (v) => v.label },
      ),
    );
    expect(failure.labels).toBeUndefined();
    expect(failure.message).toMatch(/^c is refused \(property failed/);
  });

  test('no failing label passes', async () => {
    await expect(checkProperty(envOf(), cases, async () => {}, { labelOf: (v) => v.label })).resolves.toBe(
      undefined,
    );
  });
});

describe('checkProperty: outcomes that are not counterexamples pass through as they are', () => {
  test('a target that went away is reported as such, not shrunk into a counterexample', async () => {
    const error = await checkProperty(envOf(), arbPair, async () => {
      throw new TargetGone('the server exited (code 1)');
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TargetGone);
    expect(error).not.toBeInstanceOf(PropertyFailure);
  });

  test('a case that could not be judged stays a skip', async () => {
    const error = await checkProperty(envOf(), arbPair, async () => {
      throw new NotExercised('no request reached the mock');
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotExercised);
  });
});
