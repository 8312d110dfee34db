import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CheckFailure, HarnessBug } from '../../src/harness/check.js';
import { harnessBugOf, isProgrammerError } from '../../src/harness/programmer-error.js';
import { checkProperty } from '../../src/harness/property.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { TOY_CHECK, toySuite } from './toy-suite.js';

// The engine's errors at a misused value (reading a field of undefined, calling what is not a
// function) are bugs of wirecheck: a check that meets one has judged nothing about the target.

/** The error the engine itself throws for `f`, so the tests see V8's own wording. */
function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

const nothing = undefined as unknown as { field: { deeper: number }; call: () => void };
const cyclic: Record<string, unknown> = {};
cyclic.self = cyclic;
function recurse(n: number): number {
  return recurse(n + 1) + 1;
}

describe('isProgrammerError', () => {
  test.each([
    ['reading a field of undefined', () => nothing.field.deeper],
    ['calling what is not a function', () => (nothing as unknown as { call: number }).call],
    ['calling a number', () => (1 as unknown as () => void)()],
    ['spreading what is not iterable', () => [...(5 as unknown as number[])]],
    [
      'destructuring undefined',
      () => {
        const { a } = undefined as unknown as { a: number };
        return a;
      },
    ],
    ['Object.keys of null', () => Object.keys(null as unknown as object)],
    ['`in` on what is not an object', () => 'const' in (true as unknown as object)],
    ['a text of an object that has no primitive', () => `${{ toString: 1 } as unknown as string}`],
    ['JSON.stringify of a cycle', () => JSON.stringify(cyclic)],
    ['JSON.stringify of a BigInt', () => JSON.stringify({ n: 1n })],
    ['unbounded recursion', () => recurse(0)],
    ['a name that does not exist', () => new Function('return notDeclaredAnywhere')()],
  ])('%s is one', (_, f) => {
    expect(isProgrammerError(thrownBy(f))).toBe(true);
  });

  test.each([
    ['a JSON text that does not parse (the target sent it)', () => JSON.parse('{')],
    [
      'a network failure (undici: a TypeError with a cause)',
      () => {
        throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') });
      },
    ],
    [
      'a TypeError of other wording',
      () => {
        throw new TypeError('Invalid URL');
      },
    ],
    [
      'a check failure',
      () => {
        throw new CheckFailure('expected x');
      },
    ],
    [
      'a plain Error',
      () => {
        throw new Error('read ECONNRESET');
      },
    ],
    [
      'a thrown string',
      () => {
        throw 'text';
      },
    ],
  ])('%s is not', (_, f) => {
    expect(isProgrammerError(thrownBy(f))).toBe(false);
  });

  test('harnessBugOf names the first place in wirecheck that threw, keeps a HarnessBug, and leaves others alone', () => {
    const bug = harnessBugOf(thrownBy(() => nothing.field.deeper));
    expect(bug).toBeInstanceOf(HarnessBug);
    expect(bug?.message).toMatch(
      /^TypeError: Cannot read properties of undefined \(reading 'field'\) \(at test\/harness\/programmer-error\.test\.ts:\d+:\d+\)$/,
    );
    const own = new HarnessBug('impossible state');
    expect(harnessBugOf(own)).toBe(own);
    expect(harnessBugOf(new CheckFailure('expected x'))).toBeUndefined();
  });
});

test("an installed wirecheck (under node_modules/wirecheck) names its own frame; a dependency's frame is passed over", () => {
  const e = new TypeError("Cannot read properties of undefined (reading 'x')");
  e.stack = [
    `TypeError: ${e.message}`,
    '    at parse (/app/node_modules/zod/v4/core/schemas.js:10:5)',
    '    at judge (/app/node_modules/wirecheck/dist/bundle/cli.js:1234:5)',
  ].join('\n');
  expect(harnessBugOf(e)?.message).toMatch(/\(at dist\/bundle\/cli\.js:1234:5\)$/);
});

describe('runSuite: a programmer error in a check', () => {
  test.each([1, 2])('stops the suite as a harness error and fails nothing (--jobs %i)', async (jobs) => {
    const result = await runSuite(
      toySuite({
        ...TOY_CHECK,
        id: 'toy.reads',
        run: async () => {
          const reply: { content?: { text: string }[] } = {};
          // A reply read without validating it first: a bug of the check, whatever the target sent.
          (reply.content as { text: string }[])[0]?.text.trim();
        },
      }),
      {},
      { seed: 1, jobs },
    );
    expect(result.stopped?.kind).toBe('harness-error');
    expect(result.stopped?.message).toMatch(
      /^wirecheck failed during toy\.reads \(a bug of wirecheck or of a suite\): TypeError: Cannot read properties of undefined \(reading '0'\) \(at test\/harness\/programmer-error\.test\.ts:\d+:\d+\)$/,
    );
    expect(result.checks.map((c) => [c.id, c.status, c.skipKind])).toEqual([
      ['toy.reads', 'skip', 'not-run'],
      ['toy.after', 'skip', 'not-run'],
    ]);
    expect(result.summary.failed).toBe(0);
  });

  test('in a case of a property, is not shrunk into a counterexample of the target', async () => {
    const result = await runSuite(
      toySuite({
        ...TOY_CHECK,
        id: 'toy.property',
        run: (_ctx, env) =>
          checkProperty(env, fc.integer(), async (v) => {
            if (v > 5) (undefined as unknown as { call: () => void }).call();
          }),
      }),
      {},
      { seed: 1, jobs: 2 },
    );
    expect(result.stopped?.kind).toBe('harness-error');
    expect(result.checks[0]?.status).toBe('skip');
    expect(result.checks[0]?.message).not.toMatch(/shrunk|counterexample/);
  });

  test('its text is scrubbed of what the target was given before it stops the suite', async () => {
    const secret = 's3cret-value-42';
    const result = await runSuite(
      toySuite(
        {
          ...TOY_CHECK,
          id: 'toy.leaks',
          run: async () => {
            // V8 names the property that closes a cycle: here, a text the target was given.
            const named: Record<string, unknown> = {};
            named[secret] = named;
            JSON.stringify(named);
          },
        },
        secret,
      ),
      {},
      { seed: 1 },
    );
    expect(result.stopped?.message).toContain("property '[redacted]' closes the circle");
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  test("an error of the target's making (a JSON text that does not parse) still fails the check", async () => {
    const result = await runSuite(
      toySuite({
        ...TOY_CHECK,
        id: 'toy.parses',
        run: async () => {
          JSON.parse('{"content": [');
        },
      }),
      {},
      { seed: 1 },
    );
    expect(result.stopped).toBeUndefined();
    expect(result.checks[0]?.status).toBe('fail');
    expect(result.checks[0]?.message).toMatch(/^SyntaxError: /);
  });
});
