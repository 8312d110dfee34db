import { z } from 'zod';
import { SuiteResult, Summary } from '../harness/results.js';
import { totalSummary } from './text.js';

/** `summary.json` of a run over several suites. */
export const RunSummary = z.object({
  suites: z.array(
    z.object({
      suite: z.string(),
      variant: SuiteResult.shape.variant,
      target: z.string(),
      summary: Summary,
      stopped: SuiteResult.shape.stopped,
      error: SuiteResult.shape.error,
    }),
  ),
  summary: Summary,
});
export type RunSummary = z.infer<typeof RunSummary>;

/** `results.json`: exactly the SuiteResult shape (parsing drops any field the schema does not name). */
export function formatResultsJson(result: SuiteResult): string {
  return `${JSON.stringify(SuiteResult.parse(result), null, 2)}\n`;
}

export function runSummaryOf(results: readonly SuiteResult[]): RunSummary {
  return {
    suites: results.map(({ suite, variant, target, summary, stopped, error }) => ({
      suite,
      ...(variant === undefined ? {} : { variant }),
      target,
      summary,
      ...(stopped === undefined ? {} : { stopped }),
      ...(error === undefined ? {} : { error }),
    })),
    summary: totalSummary(results),
  };
}

export function formatSummaryJson(results: readonly SuiteResult[]): string {
  return `${JSON.stringify(runSummaryOf(results), null, 2)}\n`;
}
