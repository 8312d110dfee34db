import { beforeAll, expect, test } from 'vitest';
import { ensureBuilt, nodeCommand, notPassed, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// A client written from the spec alone (clients/base.mjs without flaws): a check that fails
// it would be a false failure, the worst bug a conformance harness can have.
test('an independent client that follows the spec passes every check over both transports', async () => {
  const result = await runAgainst(nodeCommand('./clients/conforming.mjs'));
  expect(notPassed(result)).toEqual([]);
  expect(result.checks.some((c) => c.id.startsWith('tool-client.stdio.'))).toBe(true);
  expect(result.checks.some((c) => c.id.startsWith('tool-client.sse.'))).toBe(true);
}, 180_000);
