import { beforeAll, expect, test } from 'vitest';
import { referenceToolClientCommand } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, notPassed, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// The reference client (`wirecheck tool-client`, src/clients/tools) through the same
// contract as any other client.
test('the reference tool client passes every check over both transports', async () => {
  const result = await runAgainst(referenceToolClientCommand());
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.passed).toBe(result.checks.length);
}, 180_000);
