import { beforeAll, expect, test } from 'vitest';
import { ensureBuilt, nodeCommand, notPassed, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 60_000);

test('the reference messages client passes every quick check of the suite', async () => {
  const result = await runAgainst(nodeCommand('./reference-client.mjs'));
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.passed).toBeGreaterThanOrEqual(30);
}, 120_000);
