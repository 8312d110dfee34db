import type { SuiteResult } from './results.js';

/**
 * A suite run's name in reports and messages: the suite, with its variant when one plan ran
 * the suite more than once (`tool-server (stdio)`), so the runs are told apart.
 */
export function runName(run: Pick<SuiteResult, 'suite' | 'variant'>): string {
  return run.variant === undefined ? run.suite : `${run.suite} (${run.variant})`;
}
