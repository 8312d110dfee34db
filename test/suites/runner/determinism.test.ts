import { describe, expect, test } from 'vitest';
import { DETERMINISM_RUNS, runnerCommand, verdictSets } from './helpers.js';

/**
 * The same seed gives the same verdicts (the reference: determinism-reference.test.ts).
 * Each broken runner runs the checks its flaw trips 5 times, where a flaky check would
 * show first: a property that fails, leftovers in /proc, a timeout, memory read from /proc.
 */
const TARGETS: { name: string; runner: string; verdicts: Record<string, string> }[] = [
  {
    name: 'a runner that cuts by characters (a failing property)',
    runner: runnerCommand('cut-by-characters'),
    verdicts: {
      'runner.truncation.by-bytes': 'fail',
      'runner.truncation.char-boundary': 'warn',
      'runner.truncation.generated': 'fail',
    },
  },
  {
    name: 'a runner that ignores process groups (leftovers and timeouts)',
    runner: runnerCommand('ignore-process-group'),
    verdicts: {
      'runner.execution.process-group': 'fail',
      'runner.timeout.kills-group': 'fail',
      'runner.processes.background-job': 'warn',
    },
  },
  {
    name: 'a runner that keeps all output in memory (memory read from /proc)',
    runner: runnerCommand('keep-output'),
    verdicts: {
      'runner.flood.timeout-result': 'pass',
      'runner.flood.output-kept': 'pass',
      'runner.flood.memory-bounded': 'warn',
    },
  },
];

describe(`${DETERMINISM_RUNS} runs with one seed give one verdict set`, () => {
  for (const target of TARGETS) {
    test(target.name, async () => {
      const sets = await verdictSets(target.runner, Object.keys(target.verdicts));
      for (const set of sets) expect(set).toEqual(target.verdicts);
    }, 300_000);
  }
});
