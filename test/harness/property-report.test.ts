import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type CheckEnv, CheckFailure, type Suite } from '../../src/harness/check.js';
import { jsonText } from '../../src/harness/json-text.js';
import { checkProperty, PropertyFailure } from '../../src/harness/property.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { checkEnv } from '../check-env.js';

function env(seed = 3, runs = 100): CheckEnv {
  return checkEnv({ seed, runs });
}

async function failureOf(run: () => Promise<void>): Promise<PropertyFailure> {
  try {
    await run();
  } catch (e) {
    if (e instanceof PropertyFailure) return e;
    throw e;
  }
  throw new Error('the property did not fail');
}

/** The text after "counterexample " in a property failure's message. */
function printedCounterexample(message: string): string {
  const text = /; counterexample (.*)\)$/s.exec(message)?.[1];
  if (text === undefined) throw new Error(`no counterexample in: ${message}`);
  return text;
}

describe('counterexamples as printed: JSON, shrunk to what matters', () => {
  test('a record with a null prototype and optional fields prints as plain JSON, irrelevant parts shrunk away', async () => {
    const arbitrary = fc.record(
      { size: fc.nat(1000), note: fc.string(), extra: fc.option(fc.nat(), { nil: undefined }) },
      { requiredKeys: ['size', 'note'] },
    );
    const failure = await failureOf(() =>
      checkProperty(env(), arbitrary, async (v) => {
        if (v.size > 10) throw new CheckFailure('too big', '<= 10', String(v.size));
      }),
    );
    const printed = printedCounterexample(failure.message);
    expect(printed).not.toContain('__proto__');
    expect(printed).not.toContain('undefined');
    expect(JSON.parse(printed)).toEqual({ size: 11, note: '' });
    expect(failure.counterexample.json?.value).toEqual({ size: 11, note: '' });
  });

  test('a value JSON cannot keep exactly still prints as JSON', async () => {
    const failure = await failureOf(() =>
      checkProperty(env(), fc.constant({ a: undefined, b: [undefined, 1], c: -0, n: 10n }), async () => {
        throw new CheckFailure('always');
      }),
    );
    expect(failure.counterexample.json).toBeUndefined();
    expect(JSON.parse(printedCounterexample(failure.message))).toEqual({ b: [null, 1], c: 0, n: '10n' });
  });

  test('jsonText always gives JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [
      undefined,
      Number.NaN,
      new Map([[1, 'a']]),
      new Set([2]),
      cyclic,
      Object.create(null),
    ]) {
      expect(() => JSON.parse(jsonText(value))).not.toThrow();
    }
    expect(jsonText(new Map([[1, 'a']]))).toBe('{"1":"a"}');
  });
});

describe('a labelled property: every failing label reaches the result', () => {
  const RULES = ['missing model', 'max_tokens 0', 'empty messages', 'fine'] as const;

  function suite(): Suite<object, object> {
    return {
      name: 'labels',
      description: 'a labelled property',
      checks: [
        {
          id: 'labels.invalid-requests',
          clause: 'Errors',
          description: 'invalid requests are rejected',
          level: 'must',
          basis: 'spec',
          rule: 'A rule of a test suite, stated for every target.',
          async run(_ctx, e) {
            await checkProperty(
              e,
              fc.record({ rule: fc.constantFrom(...RULES), noise: fc.nat() }),
              async (v) => {
                if (v.rule === 'missing model') throw new CheckFailure('answered 500', '400', '500');
                if (v.rule === 'max_tokens 0') throw new CheckFailure('answered 200', '400', '200');
              },
              { labelOf: (v) => v.rule },
            );
          },
        },
      ],
      describeTarget: () => 'x',
      targetArgs: () => [],
      open: async () => ({ close: async () => {} }),
    };
  }

  test('the result lists each failing label with its own message', async () => {
    const result = await runSuite(suite(), {}, { seed: 5, runs: 50 });
    const labels = result.checks[0]?.labels ?? [];
    expect(labels.map((l) => l.label).sort()).toEqual(['max_tokens 0', 'missing model']);
    expect(labels.find((l) => l.label === 'missing model')?.message).toMatch(
      /^answered 500 \(property failed/,
    );
    expect(result.checks[0]?.message).toMatch(/^2 labels fail: /);
  });

  test('when every label fails, the search ends and reports them all (it once spun forever)', async () => {
    const base = suite();
    const all: Suite<object, object> = {
      ...base,
      checks: [
        {
          ...base.checks[0]!,
          async run(_ctx: object, e: CheckEnv) {
            await checkProperty(
              e,
              fc.record({ rule: fc.constantFrom('a', 'b'), noise: fc.nat() }),
              async (v) => {
                throw new CheckFailure(`answered 200 to ${v.rule}`, '400', '200');
              },
              { labelOf: (v) => v.rule },
            );
          },
        },
      ],
    };
    const result = await runSuite(all, {}, { seed: 5, runs: 50 });
    expect(result.checks[0]?.status).toBe('fail');
    expect((result.checks[0]?.labels ?? []).map((l) => l.label).sort()).toEqual(['a', 'b']);
  });
});
