import { expect, test } from 'vitest';
import { nodeCommand, notPassed, runAgainst } from './helpers.js';

// A second client written from the spec alone (broken/base.mjs without flaws): a check
// that fails it would be a false failure, the worst bug a conformance harness can have.
test('an independent client that follows the spec passes every quick check', async () => {
  const result = await runAgainst(nodeCommand('./broken/conforming.mjs'));
  expect(notPassed(result)).toEqual([]);
  // It does not retry, so the retry-after check has nothing to judge.
  expect(result.checks.filter((c) => c.status === 'skip').map((c) => c.id)).toEqual([
    'messages-client.errors.retry-after',
  ]);
}, 120_000);
