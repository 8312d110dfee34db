import { expect, test } from 'vitest';
import { referenceRunnerCommand, runnerSuite } from '../../../src/suites/runner/index.js';
import { DETERMINISM_RUNS, verdictSets } from './helpers.js';

// The same seed gives the same verdicts: the reference runs the whole quick tier (its
// properties, timing and /proc checks included) 5 times in a row, all but the 20 s default
// timeout (reference.test.ts runs it), and every run's verdict set equals the first.
test(`${DETERMINISM_RUNS} runs of the reference runner with one seed give one verdict set`, async () => {
  const only = runnerSuite.checks.map((c) => c.id).filter((id) => id !== 'runner.timeout.default-20s');
  const [first, ...rest] = await verdictSets(referenceRunnerCommand(), only);
  expect(Object.keys(first!)).toEqual(only.filter((id) => id in first!));
  expect(Object.keys(first!).length).toBe(only.length);
  for (const v of rest) expect(v).toEqual(first);
}, 600_000);
