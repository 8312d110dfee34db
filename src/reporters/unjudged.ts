import { cutShort } from '../harness/baseline.js';
import type { RunStop, SuiteResult } from '../harness/results.js';

/**
 * The stop that decides a run's exit status though no failed check shows it: a harness error
 * (2), an interrupt (130/143), or the suite's time budget running out between two checks with
 * some not run (1, see verdictOf). A report that counts only failures would show such a run
 * as passed. A stop whose check failed (the target went away, a check the budget cut) is in
 * the failures already.
 */
export function unjudgedStop(result: Pick<SuiteResult, 'stopped' | 'checks'>): RunStop | undefined {
  const stop = result.stopped;
  if (stop === undefined) return undefined;
  if (stop.kind === 'harness-error' || stop.kind === 'interrupted') return stop;
  const betweenChecks = !result.checks.some((c) => c.budgetUsedUp === true);
  if (stop.kind === 'budget' && betweenChecks && cutShort(result)) return stop;
  return undefined;
}
