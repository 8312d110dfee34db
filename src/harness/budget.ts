/** A check's budget when it names none. */
export const DEFAULT_CHECK_TIMEOUT_MS = 30_000;

/** What opening a suite may take (mock servers started, a preflight of the target) within its budget. */
export const OPEN_ALLOWANCE_MS = 60_000;

/**
 * The total time budget of a suite run: the budgets of the selected checks added up, plus
 * the allowance for opening the suite (openAllowanceMs), each times the target's
 * `budgetScale`. Each check is already cut at its own budget, so this bounds what the
 * per-check budgets do not: opening, and checks that run out the clock one after another.
 * When it is used up, the check running is cut and the rest are not run.
 */
export function suiteBudgetMs(checks: readonly { timeoutMs?: number }[], scale = 1, openMs?: number): number {
  return checks.reduce((sum, c) => sum + checkBudgetMs(c, scale), openAllowanceMs(scale, openMs));
}

/** What opening a suite may take: OPEN_ALLOWANCE_MS times the target's `budgetScale`, or the suite's `openMs` where longer. */
export function openAllowanceMs(scale = 1, openMs?: number): number {
  return Math.max(Math.round(OPEN_ALLOWANCE_MS * Math.max(1, scale)), openMs ?? 0);
}

/** One check's budget: its own (default DEFAULT_CHECK_TIMEOUT_MS), times the target's `budgetScale`. */
export function checkBudgetMs(check: { timeoutMs?: number }, scale = 1): number {
  return Math.round((check.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS) * Math.max(1, scale));
}

/** "90 s", "1.5 s", "250 ms": a budget as the console and the messages say it. */
export function formatBudget(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
