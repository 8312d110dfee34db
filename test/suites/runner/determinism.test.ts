import { describe, expect, test } from 'vitest';
import { referenceRunnerCommand, runnerSuite } from '../../../src/suites/runner/index.js';
import { runAgainst, runnerCommand, statusById } from './helpers.js';

/**
 * The same seed gives the same verdicts: each target runs 5 times in a row and every run's
 * verdict set (check id -> status) must equal the first. The reference runs the whole
 * quick tier (its properties, timing and /proc checks included) but the 20 s default
 * timeout, which reference.test.ts runs; the broken runners run the checks their flaw
 * trips, where a flaky check would show first (a property that fails, leftovers in /proc,
 * a timeout, memory read from /proc).
 */
const RUNS = 5;

const TARGETS: { name: string; runner: string; only: string[] }[] = [
  {
    name: 'the reference runner',
    runner: referenceRunnerCommand(),
    only: runnerSuite.checks.map((c) => c.id).filter((id) => id !== 'runner.timeout.default-20s'),
  },
  {
    name: 'a runner that cuts by characters (a failing property)',
    runner: runnerCommand('cut-by-characters'),
    only: ['runner.truncation.generated', 'runner.truncation.by-bytes', 'runner.truncation.char-boundary'],
  },
  {
    name: 'a runner that ignores process groups (leftovers and timeouts)',
    runner: runnerCommand('ignore-process-group'),
    only: ['runner.execution.process-group', 'runner.timeout.kills-group', 'runner.processes.background-job'],
  },
  {
    name: 'a runner that keeps all output in memory (memory read from /proc)',
    runner: runnerCommand('keep-output'),
    only: ['runner.flood.'],
  },
];

describe(`${RUNS} runs with one seed give one verdict set`, () => {
  for (const target of TARGETS) {
    test(target.name, async () => {
      const verdicts: Record<string, string>[] = [];
      for (let i = 0; i < RUNS; i++) {
        verdicts.push(statusById(await runAgainst(target.runner, { only: target.only })));
      }
      expect(Object.keys(verdicts[0]!).length).toBeGreaterThan(0);
      for (const v of verdicts.slice(1)) expect(v).toEqual(verdicts[0]);
    }, 600_000);
  }
});
