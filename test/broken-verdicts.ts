import type { SuiteResult } from '../src/harness/results.js';

/**
 * What a target with one flaw must get from a suite: the checks of the broken rule, and
 * neighbours it must still pass (so a failure is shown to come from the flaw, not from a
 * suite that fails everything). Ids are short: without the suite's `suite.` prefix.
 */
export interface ExpectedVerdicts {
  readonly fails?: readonly string[];
  readonly warns?: readonly string[];
  /** Not exercised: what the check judges never happened (a pass would be a pass on nothing). */
  readonly skips?: readonly string[];
  readonly passes?: readonly string[];
}

/** Full check id -> the status a case must get. */
export function expectedStatuses(c: ExpectedVerdicts, suite: string): Record<string, string> {
  const full = (id: string) => `${suite}.${id}`;
  return Object.fromEntries([
    ...(c.fails ?? []).map((id) => [full(id), 'fail']),
    ...(c.warns ?? []).map((id) => [full(id), 'warn']),
    ...(c.skips ?? []).map((id) => [full(id), 'skip']),
    ...(c.passes ?? []).map((id) => [full(id), 'pass']),
  ]);
}

/** "fails a, warns on b, skips c", or "passes" for a case that breaks no rule. */
export function verdictPhrase(c: ExpectedVerdicts): string {
  const verdicts = [
    ...(c.fails ?? []).map((id) => `fails ${id}`),
    ...(c.warns ?? []).map((id) => `warns on ${id}`),
    ...(c.skips ?? []).map((id) => `skips ${id}`),
  ];
  return verdicts.length === 0 ? 'passes' : verdicts.join(', ');
}

/** Check id -> status of a suite run, to compare with expectedStatuses. */
export function statusById(result: SuiteResult): Record<string, string> {
  return Object.fromEntries(result.checks.map((c) => [c.id, c.status]));
}

/**
 * Check id -> verdict of a suite run, a skip named by its kind (`not-exercised`,
 * `not-applicable`, `not-run`) rather than as `skip`: what runs with one seed must agree on,
 * since a check that flips between not exercised and not applicable is no more deterministic
 * than one that flips between pass and fail.
 */
export function verdictById(result: SuiteResult): Record<string, string> {
  return Object.fromEntries(result.checks.map((c) => [c.id, c.skipKind ?? c.status]));
}

/** expectedStatuses as verdictById names them: a case's skips are not exercised. */
export function expectedVerdicts(c: ExpectedVerdicts, suite: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(expectedStatuses(c, suite)).map(([id, status]) => [
      id,
      status === 'skip' ? 'not-exercised' : status,
    ]),
  );
}
