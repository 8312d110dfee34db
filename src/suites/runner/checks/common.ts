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
