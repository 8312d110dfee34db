import { CheckFailure } from '../../harness/check.js';
import { describeRun } from '../messages-client/output.js';
import type { AgentCaseResult } from './context.js';
import { describeRequests } from './conversation.js';

/** Budget of a check that reads one case, and of one that reads every case (each runs at most 30 s). */
export const CASE_BUDGET_MS = 60_000;
export const ALL_CASES_BUDGET_MS = 330_000;

/** How the run went, for failure messages: exit status, end of stderr, the requests. */
export function runContext(result: AgentCaseResult): string {
  return `case ${result.spec.name}: ${describeRun(result.run)}; ${describeRequests(result.requests)}`;
}

export function exitOf(result: AgentCaseResult): string {
  const { run } = result;
  if (run.timedOut) return `no exit within the case budget (${Math.round(run.durationMs)} ms)`;
  return run.exitCode === null ? `signal ${run.signal ?? 'none'}` : `exit ${run.exitCode}`;
}

export function expectExit(result: AgentCaseResult, code: number, what: string): void {
  if (result.run.exitCode === code && !result.run.timedOut) return;
  throw new CheckFailure(`${what} (${runContext(result)})`, `exit ${code}`, exitOf(result));
}

export function expectRequestCount(result: AgentCaseResult, count: number, what: string): void {
  if (result.requests.length === count) return;
  throw new CheckFailure(
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
