import { VERSION } from '../version.js';
import type { Suite } from './check.js';
import { type RunStop, type SuiteResult, summarize } from './results.js';
import { notRunResult, planRun, type RunOptions } from './run-suite.js';
import { notRunMessage } from './stop.js';

type Settings = Pick<RunOptions, 'only' | 'shard' | 'budgetMs'> & {
  seed: number;
  runs: number;
  full: boolean;
};

function emptyRun<T, C>(suite: Suite<T, C>, target: string, settings: Settings): SuiteResult {
  return {
    suite: suite.name,
    target,
    seed: settings.seed,
    summary: summarize([]),
    checks: [],
    startedAt: new Date().toISOString(),
    durationMs: 0,
    wirecheck: VERSION,
    ...(settings.shard === undefined ? {} : { shard: settings.shard }),
    runs: settings.runs,
  };
}

/**
 * The result of a suite whose target could not be started or reached at all: no check ran
 * and none is counted; `error` says what was run and what was seen.
 */
export function unavailableRun<T, C>(
  suite: Suite<T, C>,
  target: string,
  settings: Settings,
  error: { code: string; message: string },
): SuiteResult {
  return { ...emptyRun(suite, target, settings), error: { code: error.code, message: error.message } };
}

/** The result of a suite the run never reached (it was stopped before): every selected check not run. */
export function unreachedRun<T, C>(
  suite: Suite<T, C>,
  target: string,
  settings: Settings,
  stop: RunStop,
): SuiteResult {
  const { plan, checks } = planRun(suite, target, settings);
  const results = checks.map((c) => notRunResult(suite.name, c, notRunMessage(stop)));
  return {
    ...emptyRun(suite, target, settings),
    summary: summarize(results),
    checks: results,
    budgetMs: plan.budgetMs,
    stopped: stop,
  };
}
