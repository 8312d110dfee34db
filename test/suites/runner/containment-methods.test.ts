import { afterAll, describe, expect, test } from 'vitest';
import { METHOD_VARIABLE, resetContainment } from '../../../src/harness/containment/index.js';
import { referenceRunnerCommand } from '../../../src/suites/runner/index.js';
import { notPassed, runAgainst } from './helpers.js';

// A PID namespace must not change what a correct runner sees: its uid, a /proc that agrees
// with its pids, the reference runner's own sandbox inside it. The default method here (a
// cgroup) is covered by reference.test.ts; the tag changes nothing but one variable.
const original = process.env[METHOD_VARIABLE];
afterAll(() => {
  if (original === undefined) delete process.env[METHOD_VARIABLE];
  else process.env[METHOD_VARIABLE] = original;
  resetContainment();
});

describe.each(['pid-namespace'] as const)('targets contained by %s', (method) => {
  test('the reference runner (wirecheck run-bash) passes every quick check of the suite', async () => {
    process.env[METHOD_VARIABLE] = method;
    resetContainment();
    const result = await runAgainst(referenceRunnerCommand());
    expect(notPassed(result)).toEqual([]);
    expect(result.summary.failed).toBe(0);
    expect(result.summary.passed).toBeGreaterThanOrEqual(40);
  }, 240_000);
});
