import { beforeAll, expect, test } from 'vitest';
import { buildDist, distIsFresh } from '../../global-setup.js';
import { nodeCommand, notPassed, runAgainst } from './helpers.js';

beforeAll(() => {
  if (!distIsFresh()) buildDist();
}, 60_000);

test('the reference agent passes every quick check of the suite', async () => {
  const result = await runAgainst(nodeCommand('./reference-agent.mjs'));
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.passed).toBe(result.checks.length);
}, 120_000);
