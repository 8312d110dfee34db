import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { determinismJobs } from '../../determinism-jobs.js';
import { DETERMINISM_RUNS, runAgainst, runnerCommand, verdictSets } from './helpers.js';

/**
 * The same seed gives the same verdicts, a skip by its kind (the reference:
 * determinism-reference.test.ts).
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

/**
 * A check's report text as a CI job diffs it: pids stay in `actual` only, where they may
 * differ between runs; every other field must read the same.
 */
function reportTexts(result: SuiteResult): Record<string, unknown> {
  return Object.fromEntries(
    result.checks.map((c) => [
      c.id,
      {
        verdict: c.skipKind ?? c.status,
        message: c.message,
        expected: c.expected,
        actual: c.actual?.replace(/\b(pid|pgid|sid|group|groups)(:? )\d+(, \d+)*/g, '$1$2N'),
      },
    ]),
  );
}

/**
 * Broken runners whose reports quote what a run makes at random: process markers, the folder
 * of the case directories, the canaries, pids. Both runs run the checks concurrently, where
 * the order the cases start in changes from run to run.
 */
const REPORTED: { name: string; runner: string; only: string[]; quotes: RegExp }[] = [
  {
    name: 'a runner that ignores process groups (markers, pids and the sessions that left processes)',
    runner: runnerCommand('ignore-process-group'),
    only: [
      'runner.execution.process-group',
      'runner.timeout.kills-group',
      'runner.timeout.kills-term-ignoring-child',
      'runner.processes.background-job',
      'runner.processes.setsid-escapee',
      'runner.processes.none-left',
    ],
    quotes: /`sleep 311\.000<12 digits>`/,
  },
  {
    name: 'a runner that passes its whole environment on (the canaries)',
    runner: runnerCommand('inherit-all-env'),
    only: ['runner.environment.user', 'runner.environment.path', 'runner.environment.no-inherited-variables'],
    quotes: /wirecheck-canary-[0-9a-f]{12}/,
  },
  {
    name: 'a runner that crashes when its working directory cannot be made (a case directory)',
    runner: runnerCommand('crash-on-bad-workdir'),
    only: ['runner.spawn-failure.error-result'],
    quotes: /wirecheck-runner-suite-XXXXXX\/runner\.spawn-failure\.error-result\//,
  },
];

describe('two runs with one seed give one report text', () => {
  for (const target of REPORTED) {
    test(target.name, async () => {
      const jobs = determinismJobs(1);
      const [first, second] = [
        await runAgainst(target.runner, { only: target.only, jobs }),
        await runAgainst(target.runner, { only: target.only, jobs }),
      ];
      const texts = reportTexts(first);
      expect(Object.keys(texts).sort()).toEqual([...target.only].sort());
      expect(reportTexts(second)).toEqual(texts);
      // The texts hold what used to differ, now as it reads in every run.
      expect(JSON.stringify(texts)).toMatch(target.quotes);
    }, 120_000);
  }
});
