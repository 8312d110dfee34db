import { expect, test } from 'vitest';
import { referenceRunnerCommand } from '../../../src/suites/runner/index.js';
import { notPassed, runAgainst } from './helpers.js';

// dist/ is built once by the global setup (test/global-setup.ts) before any test runs.
test('the reference runner (wirecheck run-bash) passes every quick check of the suite', async () => {
  const result = await runAgainst(referenceRunnerCommand());
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.failed).toBe(0);
  expect(result.summary.passed).toBeGreaterThanOrEqual(40);
}, 240_000);
