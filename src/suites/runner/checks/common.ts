import { MAX_EXCUSED_LAG_MS } from '../timing.js';

/** How long a killed process may still show in /proc after the answer that says it ended. */
export const KILL_LATENCY_MS = 300;
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
/** The most a slow runner's allowance adds to one session's budget. */
export const MAX_SLOW_RUNNER_ALLOWANCE_MS = 30_000;
/**
 * Time added to every session of a runner slower than the budgets above assume, from its
 * answer to the preflight's one `echo` (`firstAnswerMs` after the spawn): no rule bounds how
 * long a runner takes to start or to run a command (a container or a VM per command, as the
 * spec recommends), so its own pace sets the budget. Twice its start-up past the allowance,
 * and what its one answer took past a second for each line; at most MAX_SLOW_RUNNER_ALLOWANCE_MS.
 */
export function slowRunnerAllowanceMs(firstAnswerMs: number, lines: number): number {
  const startup = Math.max(0, 2 * firstAnswerMs - STARTUP_ALLOWANCE_MS);
  const perLine = Math.max(0, firstAnswerMs - 1000) * lines;
  return Math.min(Math.ceil(startup + perLine), MAX_SLOW_RUNNER_ALLOWANCE_MS);
}
/**
 * Slack on top of a timeout and its grace for a runner's answer to arrive: starting the
 * command, a loaded machine, a runner that waits a moment for its pipes to drain. The
 * runner's own start-up is not part of it (a warm-up line is answered first) and the
 * harness's own lateness is excused on top (timing.ts).
 */
export const TIMEOUT_SLACK_MS = 3000;

/**
 * A timed-out answer later than latestAnswerMs (plus the excused harness lag) fails anyway,
 * so a session needs only a little more: enough to see the runner exit.
 */
export const ANSWER_BUDGET_MARGIN_MS = 1000;

/**
 * The longest grace between the terminate and the kill signal the musts allow. The spec's
 * 2 s is one reference runner's (Limits: "Grace between terminate and kill | 2 seconds | one
 * reference runner"; another kills at once), so a runner of another make may wait longer, as
 * `docker stop` does (10 s); runner.timeout.grace-2s warns past the 2 s.
 */
export const MAX_GRACE_MS = 10_000;

/** Upper bound on the answer to a command that outlives a timeout of `seconds`, with a grace of `graceMs`. */
export function latestAnswerMs(seconds: number, graceMs = MAX_GRACE_MS): number {
  return seconds * 1000 + graceMs + TIMEOUT_SLACK_MS;
}

/**
 * Budget of a timed session (a warm-up line, then a command that outlives a timeout of
 * `seconds`): the start-up allowance and the warm-up, the latest answer, and the harness
 * lateness a verdict may excuse, so that the budget never cuts an answer the verdict accepts.
 */
export function timedSessionBudgetMs(seconds: number): number {
  return quickBudgetMs(1, ANSWER_BUDGET_MARGIN_MS + latestAnswerMs(seconds) + MAX_EXCUSED_LAG_MS);
}
