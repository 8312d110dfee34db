/** A check's budget when it names none. */
export const DEFAULT_CHECK_TIMEOUT_MS = 30_000;

/** What opening a suite may take (mock servers started, a preflight of the target) within its budget. */
export const OPEN_ALLOWANCE_MS = 60_000;

/**
 * The total time budget of a suite run: the budgets of the selected checks added up, plus
 * OPEN_ALLOWANCE_MS for opening the suite. Each check is already cut at its own budget, so
 * this bounds what the per-check budgets do not: opening, and checks that run out the clock
 * one after another. When it is used up, the check running is cut and the rest are not run.
 */
export function suiteBudgetMs(checks: readonly { timeoutMs?: number }[]): number {
  return checks.reduce((sum, c) => sum + (c.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS), OPEN_ALLOWANCE_MS);
}

/** "90 s", "1.5 s", "250 ms": a budget as the console and the messages say it. */
export function formatBudget(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
