import { VERSION } from '../version.js';
import type { Suite } from './check.js';
import { type RunStop, type SuiteResult, selectionOf, summarize } from './results.js';
import { notRunResult, planRun, type RunOptions } from './run-suite.js';
import { notRunMessage } from './stop.js';

type Settings = Pick<RunOptions, 'only' | 'shard' | 'budgetMs'> & {
  seed: number;
  runs: number;
  full: boolean;
};

/**
 * When a suite's run began, by the wall clock (`startedAt`) and by performance.now() (its
 * duration): a preflight that gave up after 60 s took 60 s, and the reports say so.
 */
export interface Began {
  readonly at: Date;
  readonly ms: number;
}

export function beganNow(): Began {
  return { at: new Date(), ms: performance.now() };
}

function emptyRun<T, C>(
  suite: Suite<T, C>,
  target: string,
  settings: Settings,
  began: Began | undefined,
): SuiteResult {
  return {
    suite: suite.name,
    target,
    seed: settings.seed,
    summary: summarize([]),
    checks: [],
    startedAt: (began?.at ?? new Date()).toISOString(),
    durationMs: began === undefined ? 0 : Math.round(performance.now() - began.ms),
    wirecheck: VERSION,
    ...(settings.shard === undefined ? {} : { shard: settings.shard }),
    runs: settings.runs,
    selection: selectionOf(settings.only, settings.full),
  };
}

/**
 * The result of a suite whose target could not be started or reached at all: no check ran
 * and none is counted; `error` says what was run and what was seen. `began`: when the suite's
 * run began (starting its target, its preflight), undefined for one that never began.
 */
export function unavailableRun<T, C>(
  suite: Suite<T, C>,
  target: string,
  settings: Settings,
  error: { code: string; message: string },
  began?: Began,
): SuiteResult {
  return { ...emptyRun(suite, target, settings, began), error: { code: error.code, message: error.message } };
}

/**
 * The result of a suite the run never reached (it was stopped before), or one stopped before
 * its checks (a harness error on opening it, `began` then set): every selected check not run.
 */
export function unreachedRun<T, C>(
  suite: Suite<T, C>,
  target: string,
  settings: Settings,
  stop: RunStop,
  began?: Began,
): SuiteResult {
  const { plan, checks } = planRun(suite, target, settings);
  const results = checks.map((c) => notRunResult(suite.name, c, notRunMessage(stop)));
  return {
    ...emptyRun(suite, target, settings, began),
    summary: summarize(results),
    checks: results,
    budgetMs: plan.budgetMs,
    stopped: stop,
  };
}
