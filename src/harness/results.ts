import { z } from 'zod';

export const CHECK_STATUSES = ['pass', 'fail', 'warn', 'skip'] as const;
export const CheckStatus = z.enum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof CheckStatus>;

/**
 * How much a rule weighs: `must` (a rule the spec states, or the real protocol's MUST)
 * fails the run; `should` (the spec is silent and implementations reasonably differ)
 * warns, and fails only under --strict.
 */
export const Level = z.enum(['must', 'should']);
export type Level = z.infer<typeof Level>;

/** One check's outcome: a plain record, built by the harness, formatted by reporters. */
export const CheckResult = z.object({
  id: z.string(),
  suite: z.string(),
  clause: z.string(),
  description: z.string(),
  level: Level,
  status: CheckStatus,
  message: z.string(),
  durationMs: z.number().nonnegative(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  /** The command line that runs exactly this check again with the same seed. */
  reproduce: z.string().optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const Summary = z.object({
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  warned: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
});
export type Summary = z.infer<typeof Summary>;

/** The `results.json` shape of TARGETS.md (one suite run). */
export const SuiteResult = z.object({
  suite: z.string(),
  target: z.string(),
  seed: z.number().int(),
  summary: Summary,
  checks: z.array(CheckResult),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  wirecheck: z.string(),
});
export type SuiteResult = z.infer<typeof SuiteResult>;

export function summarize(checks: readonly Pick<CheckResult, 'status'>[]): Summary {
  const summary = { passed: 0, failed: 0, warned: 0, skipped: 0 };
  for (const c of checks) {
    if (c.status === 'pass') summary.passed++;
    else if (c.status === 'fail') summary.failed++;
    else if (c.status === 'warn') summary.warned++;
    else summary.skipped++;
  }
  return summary;
}

/** Exit status of `wirecheck test` for finished runs: 0 clean, 1 a failure (or a warning under --strict). */
export function exitCodeOf(results: readonly SuiteResult[], strict: boolean): 0 | 1 {
  for (const r of results) {
    if (r.summary.failed > 0 || (strict && r.summary.warned > 0)) return 1;
  }
  return 0;
}
