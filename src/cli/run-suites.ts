import { WirecheckError } from '../harness/errors.js';
import { exitCodeOf, type SuiteResult } from '../harness/results.js';
import { runSuite } from '../harness/run-suite.js';
import {
  formatCheck,
  formatSuiteHeader,
  formatSuiteSummary,
  formatTotals,
  shouldUseColor,
} from '../reporters/console.js';
import { writeReports } from '../reporters/write.js';
import type { RunningReference, SuiteEntry } from '../suites/registry.js';
import type { CliContext } from './context.js';
import { asWirecheckError, reportError } from './report-error.js';

/** A suite to run and how to get its target (built from options, or a started reference). */
export interface PlannedSuite {
  readonly entry: SuiteEntry;
  /** What the error names when `start` fails ("target", "reference implementation"). */
  readonly targetKind: string;
  start(): Promise<RunningReference>;
}

export interface RunSettings {
  readonly seed: number;
  readonly runs: number;
  readonly full: boolean;
  readonly strict: boolean;
  readonly only?: readonly string[];
  readonly reportDir?: string;
  /** Print passing checks too (failures, warnings and skips are always printed). */
  readonly verbose: boolean;
}

/**
 * Run the planned suites one after another, printing as checks finish, then write the
 * reports and the totals. A suite whose target cannot start is reported and the others
 * still run; the exit status is then 2, else 1 for a failed check (or a warning under
 * --strict), else 0.
 */
export async function runPlannedSuites(
  plan: readonly PlannedSuite[],
  settings: RunSettings,
  ctx: CliContext,
): Promise<number> {
  const style = { color: shouldUseColor(ctx.stdout, ctx.env) };
  const out = (text: string) => ctx.stdout.write(`${text}\n`);
  const results: SuiteResult[] = [];
  const errors: WirecheckError[] = [];
  for (const planned of plan) {
    const name = planned.entry.suite.name;
    let running: RunningReference;
    try {
      running = await planned.start();
    } catch (e) {
      // Whatever the reason, a target that cannot start is a target that could not start.
      const reason = e instanceof Error ? e.message : String(e);
      const error =
        e instanceof WirecheckError
          ? e
          : new WirecheckError(
              'WC_TARGET_UNAVAILABLE',
              `suite ${name}: the ${planned.targetKind} could not be started: ${reason}`,
              { cause: e },
            );
      errors.push(error);
      reportError(ctx.stderr, error);
      continue;
    }
    try {
      const target = planned.entry.suite.describeTarget(running.target);
      out(formatSuiteHeader({ suite: name, target, ...settings }, style));
      const result = await runSuite(planned.entry.suite, running.target, {
        seed: settings.seed,
        runs: settings.runs,
        full: settings.full,
        ...(settings.only === undefined ? {} : { only: settings.only }),
        onResult: (check) => {
          if (settings.verbose || check.status !== 'pass') out(formatCheck(check, style));
        },
      });
      out(formatSuiteSummary(result, style));
      out('');
      results.push(result);
    } catch (e) {
      const error = asWirecheckError(e, `suite ${name}`);
      errors.push(error);
      reportError(ctx.stderr, error);
    } finally {
      await running.close().catch((e: unknown) => {
        ctx.stderr.write(
          `wirecheck: warning: closing the ${planned.targetKind} of suite ${name} failed: ${e}\n`,
        );
      });
    }
  }
  if (results.length > 0) {
    if (settings.reportDir !== undefined) {
      await writeReports(settings.reportDir, results, { strict: settings.strict });
      out(`reports written to ${settings.reportDir}`);
    }
    out(formatTotals(results, settings));
  }
  if (errors.length > 0) return Math.max(...errors.map((e) => e.exitCode));
  return exitCodeOf(results, settings.strict);
}
