import fc from 'fast-check';
import { expect, test } from 'vitest';
import { CheckFailure, HarnessBug } from '../../src/harness/check.js';
import { checkProperty } from '../../src/harness/property.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { TOY_CHECK, toySuite } from './toy-suite.js';

// A bug of wirecheck met in one case of a property is a harness error, as it is outside one:
// never a failure of the target, shrunk and saved as its counterexample.

test.each([1, 2])(
  'a HarnessBug in a case of a property stops the suite as a harness error (--jobs %i)',
  async (jobs) => {
    const result = await runSuite(
      toySuite({
        ...TOY_CHECK,
        id: 'toy.property',
        run: (_ctx, env) =>
          checkProperty(env, fc.integer(), async (v) => {
            if (v > 5) throw new HarnessBug('impossible state');
          }),
      }),
      {},
      { seed: 1, jobs },
    );
    expect(result.stopped?.kind).toBe('harness-error');
    expect(result.checks.map((c) => [c.id, c.status, c.skipKind])).toEqual([
      ['toy.property', 'skip', 'not-run'],
      ['toy.after', 'skip', 'not-run'],
    ]);
    expect(result.checks[0]?.message).toMatch(/wirecheck failed during this check.*impossible state/);
    expect(result.checks[0]?.message).not.toMatch(/shrunk|counterexample/);
  },
);

test('a HarnessBug met after a label already failed, in a labelled property, still reaches the harness', async () => {
  const env = {
    seed: 1,
    runs: 20,
    full: false,
    signal: new AbortController().signal,
    idle: <W>(w: Promise<W>) => w,
  };
  let aFailed = false;
  const run = checkProperty(
    env,
    fc.constantFrom('a', 'b'),
    async (v) => {
      if (v === 'a') {
        aFailed = true;
        throw new CheckFailure('label a breaks its rule');
      }
      if (aFailed) throw new HarnessBug('wirecheck bug met in a case of label b');
    },
    { labelOf: (v) => v },
  );
  await expect(run).rejects.toBeInstanceOf(HarnessBug);
});
