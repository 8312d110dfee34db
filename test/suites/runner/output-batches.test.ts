import { describe, expect, test } from 'vitest';
import { outputBatches } from '../../../src/suites/runner/checks/truncation.js';

describe('runner.truncation.generated: generated outputs per runner session', () => {
  test.each([
    [25, { runs: 5, perRun: 5 }],
    [200, { runs: 40, perRun: 5 }],
    [3, { runs: 1, perRun: 3 }],
    [1, { runs: 1, perRun: 1 }],
    [7, { runs: 2, perRun: 5 }],
  ])('%i outputs: %o', (outputs, expected) => {
    expect(outputBatches(outputs)).toEqual(expected);
  });

  test('never fewer outputs than asked, and never more than one session short of them', () => {
    for (let outputs = 1; outputs <= 250; outputs++) {
      const { runs, perRun } = outputBatches(outputs);
      expect(runs * perRun).toBeGreaterThanOrEqual(outputs);
      expect((runs - 1) * perRun).toBeLessThan(outputs);
    }
  });
});
