import {
  applyBaseline,
  assertBaselineNamesKnownChecks,
  type Baseline,
  markCheck,
  readBaseline,
  verdictOf,
} from '../harness/baseline.js';
import type { PropertyReplay } from '../harness/check.js';
import { WirecheckError } from '../harness/errors.js';
import type { SuiteResult } from '../harness/results.js';
import { runSuite } from '../harness/run-suite.js';
import type { Shard } from '../harness/shard.js';
import {
  formatCheck,
  formatSuiteHeader,
  formatSuiteSummary,
  formatTotals,
  shouldUseColor,
} from '../reporters/console.js';
import { createProgress, isLiveTerminal } from '../reporters/progress.js';
import { writeReports } from '../reporters/write.js';
import { type RunningReference, SUITES, type SuiteEntry } from '../suites/registry.js';
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
  /** Path of a baseline file of expected failures. */
  readonly baseline?: string;
  readonly shard?: Shard;
  /** `--replay FILE`: run only the saved case of the fixture's check. */
  readonly replay?: PropertyReplay;
}

async function loadBaseline(path: string | undefined): Promise<Baseline | undefined> {
  if (path === undefined) return undefined;
  const baseline = await readBaseline(path);
  assertBaselineNamesKnownChecks(
    baseline,
    SUITES.map((e) => e.suite),
  );
  return baseline;
}

/** The line asking to remove stale entries, naming each with its line in the file. */
function staleLine(baseline: Baseline, results: readonly SuiteResult[]): string | undefined {
  const stale = results.flatMap((r) => r.checks.filter((c) => c.baseline?.status === 'stale'));
  if (stale.length === 0) return undefined;
  const where = stale.map((c) => {
    const entry = baseline.entries.find((e) => e.suite === c.suite && e.id === c.id);
    return `${c.suite}:${c.id}${entry === undefined ? '' : ` (line ${entry.line})`}`;
  });
  return `baseline ${baseline.source}: remove the stale ${stale.length === 1 ? 'entry' : 'entries'} ${where.join(', ')}`;
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
  const baseline = await loadBaseline(settings.baseline);
  const style = { color: shouldUseColor(ctx.stdout, ctx.env) };
  const progress = createProgress(ctx.stdout, {
    live: isLiveTerminal(ctx.stdout, ctx.env),
    color: style.color,
  });
  const out = (text: string) => progress.print(text);
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
      const run = await runSuite(planned.entry.suite, running.target, {
        seed: settings.seed,
        runs: settings.runs,
        full: settings.full,
        ...(settings.only === undefined ? {} : { only: settings.only }),
        ...(settings.shard === undefined ? {} : { shard: settings.shard }),
        ...(settings.reportDir === undefined ? {} : { reportDir: settings.reportDir }),
        ...(settings.replay === undefined ? {} : { replay: settings.replay }),
        onStart: (id, index, total) => progress.status({ suite: name, done: index, total, current: id }),
        onResult: (check) => {
          const marked = markCheck(check, baseline, settings.strict);
          if (settings.verbose || marked.status !== 'pass' || marked.baseline !== undefined) {
            out(formatCheck(marked, style));
          }
        },
      });
      progress.clear();
      const result = applyBaseline(run, baseline, settings.strict);
      out(formatSuiteSummary(result, style));
      out('');
      results.push(result);
    } catch (e) {
      progress.clear();
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
    const stale = baseline === undefined ? undefined : staleLine(baseline, results);
    if (stale !== undefined) out(stale);
    if (settings.reportDir !== undefined) {
      await writeReports(settings.reportDir, results, { strict: settings.strict });
      out(`reports written to ${settings.reportDir}`);
    }
    out(formatTotals(results, settings));
  }
  if (errors.length > 0) return Math.max(...errors.map((e) => e.exitCode));
  return verdictOf(results, settings.strict);
}
