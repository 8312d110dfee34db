import { CheckFailure } from '../../harness/check.js';
import { describeCommandRun } from '../../harness/command-output.js';
import type { AgentCaseResult } from './context.js';
import { describeRequests } from './conversation.js';
import { describeOutput } from './preflight.js';

/** Budget of a check that reads one case, and of one that reads every case (each runs at most 30 s). */
export const CASE_BUDGET_MS = 60_000;
export const ALL_CASES_BUDGET_MS = 360_000;

/** How the run went, for failure messages: exit status, end of stderr, the requests. */
export function runContext(result: AgentCaseResult): string {
  return `case ${result.spec.name}: ${describeCommandRun(result.run)}; ${describeRequests(result.requests)}`;
}

/**
 * A failure of a case. When the agent sent nothing at all in the case, that one fault (with
 * how the agent ended and what it printed) explains it, and reports print it once for every
 * check it fails.
 */
export function caseFailure(
  result: AgentCaseResult,
  message: string,
  expected?: string,
  actual?: string,
): CheckFailure {
  const cause =
    result.requests.length === 0
      ? `the agent sent no request in a case: ${describeOutput(result.run)}`
      : undefined;
  return new CheckFailure(
    message,
    expected,
    actual,
    undefined,
    cause === undefined ? {} : { sharedCause: cause },
  );
}

export function exitOf(result: AgentCaseResult): string {
  const { run } = result;
  if (run.timedOut) return `no exit within the case budget (${Math.round(run.durationMs)} ms)`;
  return run.exitCode === null ? `signal ${run.signal ?? 'none'}` : `exit ${run.exitCode}`;
}

export function expectExit(result: AgentCaseResult, code: number, what: string): void {
  if (result.run.exitCode === code && !result.run.timedOut) return;
  throw caseFailure(result, `${what} (${runContext(result)})`, `exit ${code}`, exitOf(result));
}

export function expectRequestCount(result: AgentCaseResult, count: number, what: string): void {
  if (result.requests.length === count) return;
  throw caseFailure(
    result,
    `${what} (${runContext(result)})`,
    `${count} requests`,
    `${result.requests.length} requests`,
  );
}

/**
 * The line asking for operator intervention: the contract asks for one on stderr without
 * fixing its words, so any line naming an operator, a human or intervention counts.
 */
export const OPERATOR_LINE = /\b(operator|human)\b|interven/i;

export function operatorLineOf(stderr: string): string | undefined {
  return stderr.split(/\r\n|\r|\n/).find((line) => OPERATOR_LINE.test(line));
}
