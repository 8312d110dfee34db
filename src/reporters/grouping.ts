import type { CheckResult, SuiteResult } from '../harness/results.js';

/** Failures (and warnings) of one run explained by one fault of the target. */
export interface CauseGroup {
  /** The shared cause as the suite stated it (the target's first stderr lines included). */
  readonly cause: string;
  /** In run order; at least two. */
  readonly checks: readonly CheckResult[];
}

/** Whether a result takes part in grouping: a failure or warning with a shared cause and no baseline mark. */
export function isGroupable(c: CheckResult): c is CheckResult & { sharedCause: string } {
  return (
    (c.status === 'fail' || c.status === 'warn') && c.sharedCause !== undefined && c.baseline === undefined
  );
}

/**
 * The shared causes that explain two or more results, in the order each first appeared. A
 * cause that explains one result only is no group: that result is shown as any other.
 */
export function causeGroups(checks: readonly CheckResult[]): CauseGroup[] {
  const byCause = new Map<string, CheckResult[]>();
  for (const c of checks) {
    if (!isGroupable(c)) continue;
    const members = byCause.get(c.sharedCause);
    if (members === undefined) byCause.set(c.sharedCause, [c]);
    else members.push(c);
  }
  return [...byCause]
    .filter(([, members]) => members.length >= 2)
    .map(([cause, members]) => ({ cause, checks: members }));
}

/** The ids of the results shown inside a group rather than on their own. */
export function groupedIds(groups: readonly CauseGroup[]): Set<string> {
  return new Set(groups.flatMap((g) => g.checks.map((c) => c.id)));
}

/** "27 checks failed for one cause", "3 checks warned ...", or "5 checks failed or warned ...". */
export function groupHeadline(group: CauseGroup): string {
  const fails = group.checks.filter((c) => c.status === 'fail').length;
  const verb = fails === group.checks.length ? 'failed' : fails === 0 ? 'warned' : 'failed or warned';
  return `${group.checks.length} checks ${verb} for one cause`;
}

/** The checks a run did not reach (skip kind `not-run`). */
export function notRunChecks(checks: readonly CheckResult[]): CheckResult[] {
  return checks.filter((c) => c.status === 'skip' && c.skipKind === 'not-run');
}

/**
 * Why the checks of a run were not run, said once: the run's stop, else the message the
 * not-run checks share (a result merged from shards, or built by hand).
 */
export function notRunReason(result: Pick<SuiteResult, 'stopped' | 'checks'>): string | undefined {
  if (result.stopped !== undefined) return result.stopped.message;
  const first = notRunChecks(result.checks)[0];
  return first?.message.replace(/^not run: /, '');
}

/**
 * notRunReason for a report that has printed the failure of the check that saw the target
 * go: the cause is not said a second time, the reason points at it.
 */
export function notRunReasonAfterCause(result: Pick<SuiteResult, 'stopped' | 'checks'>): string | undefined {
  const reason = notRunReason(result);
  const gone = result.checks.find((c) => c.targetGone === true && c.status === 'fail');
  if (reason === undefined || gone === undefined || gone.message === '') return reason;
  const cause = `: ${gone.message}`;
  return reason.endsWith(cause) ? `${reason.slice(0, -cause.length)} (the cause is printed above)` : reason;
}

/**
 * The checks that ran fewer fast-check runs per property than the run asked for (the check
 * caps them, e.g. one process start per run), with the lowest and highest count.
 */
export function cappedRuns(
  result: Pick<SuiteResult, 'runs' | 'checks'>,
): { checks: CheckResult[]; lowest: number; highest: number } | undefined {
  const asked = result.runs;
  if (asked === undefined) return undefined;
  const capped = result.checks.filter((c) => c.runs !== undefined && c.runs < asked);
  if (capped.length === 0) return undefined;
  const counts = capped.map((c) => c.runs ?? 0);
  return { checks: capped, lowest: Math.min(...counts), highest: Math.max(...counts) };
}
