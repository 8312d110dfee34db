import { KILL_GRACE_MS } from '../../../protocol/bash/index.js';

/** Budget of a check that runs one or two short sessions. */
export const CASE_BUDGET_MS = 60_000;
/** Budget of a property that starts the runner once per run. */
export const PROPERTY_BUDGET_MS = 600_000;
/** Time a runner may take to start before it answers anything (an interpreter, a container). */
export const STARTUP_ALLOWANCE_MS = 5000;
/** Session budget: the start-up allowance plus a second per line for commands that return at once. */
export function quickBudgetMs(lines: number, extraMs = 0): number {
  return STARTUP_ALLOWANCE_MS + lines * 1000 + extraMs;
}
/**
 * Slack on top of a timeout and its grace for a runner's answer to arrive: process start,
 * a loaded machine, a runner that waits a moment for its pipes to drain.
 */
export const TIMEOUT_SLACK_MS = 3000;

/**
 * A timed-out answer later than latestAnswerMs fails anyway (start-up is part of the
 * slack), so a session needs only a little more: enough to see the runner exit.
 */
export const ANSWER_BUDGET_MARGIN_MS = 1000;

/** Upper bound on the answer to a command that outlives a timeout of `seconds`. */
export function latestAnswerMs(seconds: number): number {
  return seconds * 1000 + KILL_GRACE_MS + TIMEOUT_SLACK_MS;
}
