import { join } from 'node:path';
import {
  applyBaseline,
  assertBaselineNamesKnownChecks,
  type Baseline,
  markCheck,
  readBaseline,
  verdictOf,
} from '../harness/baseline.js';
import { type PropertyReplay, WIRECHECK_BLAMED } from '../harness/check.js';
import { HARNESS_ERRORS, WirecheckError } from '../harness/errors.js';
import { RESULT_TEXT_LIMITS } from '../harness/result-text.js';
import type { RunStop, SuiteResult } from '../harness/results.js';
import { describeUncaught } from '../harness/run-guard.js';
import { runName } from '../harness/run-name.js';
import { defaultJobs, runSuite } from '../harness/run-suite.js';
import type { Shard } from '../harness/shard.js';
import { shownTarget } from '../harness/shown-target.js';
import { createSlots, type Slots } from '../harness/slots.js';
import { stopExitCode, stopOf } from '../harness/stop.js';
import { beganNow, unavailableRun, unreachedRun } from '../harness/unrun.js';
import { clip } from '../protocol/clip.js';
import {
  createSuitePrinter,
  formatSuiteHeader,
  formatSuiteSummary,
  formatTotals,
  shouldUseColor,
} from '../reporters/console.js';
import { createProgress, isLiveTerminal, type Progress } from '../reporters/progress.js';
import { prepareReportDir, releaseReportDir } from '../reporters/report-dir.js';
import { withoutTerminalControls } from '../reporters/text.js';
import { runFolder, writeReports } from '../reporters/write.js';
import { type RunningReference, SUITES, type SuiteEntry } from '../suites/registry.js';
import type { CliContext, CliRunGuard } from './context.js';
import { type BlockOutput, orderedBlocks } from './ordered-blocks.js';
import { asWirecheckError, reportError } from './report-error.js';

/** A suite to run and how to get its target (built from options, or a started reference). */
export interface PlannedSuite {
  readonly entry: SuiteEntry;
  /** What the error names when `start` fails ("target", "reference implementation"). */
  readonly targetKind: string;
  /**
   * Which run of the suite this is, when the plan runs it more than once (`all`: the
   * tool-server suite per transport); its result carries it (SuiteResult.variant).
   */
  readonly variant?: string;
  start(): Promise<RunningReference>;
}

export interface RunSettings {
  readonly seed: number;
  readonly runs: number;
  /** Checks of a suite run at once (`--jobs`; suites whose checks may run concurrently). */
  readonly jobs?: number;
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
  /** The fixture `--replay` read: kept when it lies in the report directory and this run passes its check. */
  readonly replayFile?: string;
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

/** The guard of a run given no process to watch (the programmatic default): never stops. */
function inertGuard(): CliRunGuard {
  return {
    signal: new AbortController().signal,
    stop: undefined,
    harnessErrors: [],
    dispose: () => {},
    release: () => {},
  };
}

/**
 * Run the planned suites (overlapping under --jobs above 1: see runOverlapping), printing
 * each suite's block whole and in plan order as its checks finish, then write the
 * reports and the totals. A suite whose target cannot start is reported (its results carry
 * the error and no check) and the others still run; the exit status is then 2. An interrupt
 * (SIGINT/SIGTERM/SIGHUP) or an uncaught error stops the run: the running check is abandoned,
 * the suite closed, the reports written with the rest marked not run, and the status is
 * 130/143/129 or 2. Else 1 for a failed check (or a warning under --strict), else 0.
 */
export async function runPlannedSuites(
  plan: readonly PlannedSuite[],
  settings: RunSettings,
  ctx: CliContext,
): Promise<number> {
  const baseline = await loadBaseline(settings.baseline);
  if (settings.reportDir !== undefined) await prepareReportDir(settings.reportDir);
  const guard = (ctx.guardRun ?? inertGuard)();
  let exitCode: number = HARNESS_ERRORS.WC_INTERNAL.exitCode;
  try {
    exitCode = await runGuarded(plan, settings, ctx, baseline, guard);
    return exitCode;
  } finally {
    guard.release(exitCode);
    // A run that wrote no reports (none to write, or stopped before) holds the lock no longer.
    if (settings.reportDir !== undefined) await releaseReportDir(settings.reportDir);
  }
}

/** What running one planned suite shares with the others of the run. */
interface RunShared {
  readonly settings: RunSettings;
  readonly baseline: Baseline | undefined;
  readonly guard: CliRunGuard;
  readonly style: { readonly color: boolean };
  readonly runSettings: {
    seed: number;
    runs: number;
    full: boolean;
    jobs?: number;
    only?: readonly string[];
    shard?: Shard;
  };
  /** The references' notes, each printed once (the runner and the agent share one). */
  readonly notes: Set<string>;
  readonly errors: WirecheckError[];
}

async function runGuarded(
  plan: readonly PlannedSuite[],
  settings: RunSettings,
  ctx: CliContext,
  baseline: Baseline | undefined,
  guard: CliRunGuard,
): Promise<number> {
  const style = { color: shouldUseColor(ctx.stdout, ctx.env) };
  const progress = createProgress(ctx.stdout, {
    live: isLiveTerminal(ctx.stdout, ctx.env),
    color: style.color,
  });
  const out = (text: string) => progress.print(text);
  const errors: WirecheckError[] = [];
  const shared: RunShared = {
    settings,
    baseline,
    guard,
    style,
    runSettings: {
      seed: settings.seed,
      runs: settings.runs,
      full: settings.full,
      ...(settings.jobs === undefined ? {} : { jobs: settings.jobs }),
      ...(settings.only === undefined ? {} : { only: settings.only }),
      ...(settings.shard === undefined ? {} : { shard: settings.shard }),
    },
    notes: new Set<string>(),
    errors,
  };
  const blocks = orderedBlocks(plan.length, {
    out,
    err: (text) => ctx.stderr.write(text),
    clear: () => progress.clear(),
  });
  const outcomes: (SuiteResult | undefined)[] = await runOverlapping(
    plan,
    settings.jobs ?? defaultJobs(),
    (planned, i, pool) =>
      runPlanned(planned, shared, blocks.block(i), progress, pool).finally(() => blocks.end(i)),
  );
  const results = outcomes.filter((r): r is SuiteResult => r !== undefined);
  // A bug a check caught in wirecheck stops its suite only; the run's status says it all the same.
  // Read once, every check having ended: a signal from here on (while the reports are written)
  // changes nothing, as the verdict is whole and the reports say it; a second one still ends
  // the process at once (processRunGuard).
  const stop = guard.stop ?? results.find((r) => r.stopped?.kind === 'harness-error')?.stopped;
  if (stop !== undefined) reportStop(stop, guard, results, ctx, out);
  const ran = results.filter((r) => r.error === undefined);
  if (ran.length > 0) {
    const stale = baseline === undefined ? undefined : staleLine(baseline, ran);
    if (stale !== undefined) out(stale);
  }
  if (settings.reportDir !== undefined && results.length > 0) {
    try {
      await writeReports(settings.reportDir, results, {
        strict: settings.strict,
        ...(settings.replayFile === undefined ? {} : { keep: [settings.replayFile] }),
      });
      out(`reports written to ${settings.reportDir}`);
    } catch (e) {
      // The results are on the console all the same; the status says the reports are not.
      const error = asWirecheckError(e, 'reports');
      errors.push(error);
      reportError(ctx.stderr, error);
    }
  }
  if (ran.length > 0) out(formatTotals(ran, settings));
  const stopped = stopExitCode(stop);
  if (stopped !== undefined) return stopped;
  if (errors.length > 0) return Math.max(...errors.map((e) => e.exitCode));
  return verdictOf(results, settings.strict);
}

/** The job slots a suite takes its checks' slots from, and how it lets the next suite open. */
interface SharedPool {
  readonly slots: Slots;
  readonly onDispatched: () => void;
}

/**
 * Run the planned suites: with one job, one after another; with more, overlapping, all taking
 * their checks' job slots from one pool of `jobs` slots. A suite opens once the suite before it
 * has started all its checks but those that run alone or last (a suite of one check at a
 * time: at once), so one suite's waits (the runner's timeout cases) overlap the next
 * suites' checks, and only the suites that have checks left to start wait their turn. Resolves to each suite's result (undefined: it has none), in plan order.
 */
async function runOverlapping<R>(
  plan: readonly PlannedSuite[],
  jobs: number,
  run: (planned: PlannedSuite, index: number, pool: SharedPool | undefined) => Promise<R>,
): Promise<R[]> {
  if (jobs <= 1 || plan.length <= 1) {
    const done: R[] = [];
    for (const [i, planned] of plan.entries()) done.push(await run(planned, i, undefined));
    return done;
  }
  const slots = createSlots(jobs);
  const opens: (() => void)[] = [];
  const admissions = plan.map((_, i) => new Promise<void>((resolve) => (opens[i] = resolve)));
  const admitNext = (i: number) => opens[i + 1]?.();
  const tasks = plan.map(async (planned, i) => {
    await admissions[i];
    try {
      return await run(planned, i, { slots, onDispatched: () => admitNext(i) });
    } finally {
      admitNext(i);
    }
  });
  opens[0]?.();
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

/**
 * Start one planned suite's target, run the suite and close the target, writing its console
 * block to `block`. Resolves to the suite's result (a target that could not be run: its error;
 * an unexpected error: a harness-error stop, the checks not run), or undefined when it has
 * none (a usage error found on opening the suite, reported).
 */
async function runPlanned(
  planned: PlannedSuite,
  shared: RunShared,
  block: BlockOutput,
  progress: Progress,
  pool: SharedPool | undefined,
): Promise<SuiteResult | undefined> {
  const { settings, guard, style, runSettings, notes, errors } = shared;
  const suite = planned.entry.suite;
  const variant = planned.variant === undefined ? {} : { variant: planned.variant };
  const name = runName({ suite: suite.name, ...variant });
  // Every result of the run names its variant, one that never started included: a shard's
  // placeholder must merge with the other shards of the same run.
  const named = (result: SuiteResult): SuiteResult => ({ ...result, ...variant });
  const stderr = { write: (text: string) => block.err(text) };
  if (guard.signal.aborted)
    return named(unreachedRun(suite, '(not started)', runSettings, stopOf(guard.signal)));
  // A suite of one check at a time holds at most one slot of the pool: the next suite may start
  // its target and open beside this one's (the tool server's three runs and tool-client did
  // one after another, about a second each, with a core idle).
  if (suite.concurrent !== true) pool?.onDispatched();
  const began = beganNow();
  let running: RunningReference;
  try {
    running = await planned.start();
    if (running.note !== undefined && !notes.has(running.note)) {
      notes.add(running.note);
      block.err(`${running.note}\n`);
    }
  } catch (e) {
    // Whatever the reason, a target that cannot start is a target that could not start.
    const reason = e instanceof Error ? e.message : String(e);
    const error =
      e instanceof WirecheckError
        ? e
        : new WirecheckError(
            'WC_TARGET_UNAVAILABLE',
            `suite ${suite.name}: the ${planned.targetKind} could not be started: ${reason}`,
            { cause: e },
          );
    errors.push(error);
    reportError(stderr, error);
    return named(unavailableRun(suite, '(not started)', runSettings, error, began));
  }
  const target = shownTarget(suite, running.target);
  const printer = createSuitePrinter(style, { verbose: settings.verbose, askedRuns: settings.runs });
  const endBlock = (result: SuiteResult) => {
    for (const text of printer.end(result)) block.out(text);
    block.out(formatSuiteSummary(result, style));
    block.out('');
  };
  try {
    const run = await runSuite(suite, running.target, {
      ...runSettings,
      ...(settings.reportDir === undefined
        ? {}
        : { reportDir: counterexampleRoot(settings.reportDir, { suite: suite.name, ...variant }) }),
      ...(settings.replay === undefined ? {} : { replay: settings.replay }),
      ...(pool === undefined ? {} : { slots: pool.slots, onDispatched: pool.onDispatched }),
      signal: guard.signal,
      onBegin: (p) => block.out(formatSuiteHeader({ ...p, suite: name }, style)),
      onStart: (id, index, total) =>
        block.status(() => progress.status({ suite: name, done: index, total, current: id })),
      onResult: (check) => {
        const text = printer.add(markCheck(check, shared.baseline, settings.strict));
        if (text !== undefined) block.out(text);
      },
    });
    block.clear();
    const result = named(applyBaseline(run, shared.baseline, settings.strict));
    endBlock(result);
    for (const warning of result.warnings ?? []) {
      block.err(`wirecheck: warning: suite ${name}: ${withoutTerminalControls(warning)}\n`);
    }
    return result;
  } catch (e) {
    block.clear();
    // An unexpected error's text (its message, its stack) may quote what the target was given.
    const scrub = suite.scrubber?.(running.target) ?? ((text: string) => text);
    const found = asWirecheckError(e, `suite ${name}`);
    const error = new WirecheckError(found.code, scrub(found.message), { cause: e });
    errors.push(error);
    reportError(stderr, error);
    if (error.code === 'WC_TARGET_UNAVAILABLE')
      return named(unavailableRun(suite, target, runSettings, error, began));
    // A usage error found on opening (a missing key) judged nothing and blames nobody: no report, as before the run.
    if (error.code !== 'WC_INTERNAL') return undefined;
    // Reported like a bug a check caught: the suite's checks not run, so the reports say it.
    const first = scrub(describeUncaught(e).split('\n')[0] ?? '');
    const stop: RunStop = {
      kind: 'harness-error',
      message: clip(
        `wirecheck failed in suite ${name} (${WIRECHECK_BLAMED}): ${first}`,
        RESULT_TEXT_LIMITS.message,
      ),
    };
    const result = named(unreachedRun(suite, target, runSettings, stop, began));
    for (const check of result.checks) printer.add(check);
    endBlock(result);
    return result;
  } finally {
    await running.close().catch((e: unknown) => {
      block.err(
        `wirecheck: warning: closing the ${planned.targetKind} of suite ${suite.name} failed: ${withoutTerminalControls(String(e))}\n`,
      );
    });
  }
}

/**
 * Where a run saves its counterexamples (under `counterexamples/`, named by check id): the
 * report directory, or for one of several runs of a suite (`all`: the tool server per
 * transport, with the same check ids) the run's own folder, beside its results.json.
 */
function counterexampleRoot(reportDir: string, run: { suite: string; variant?: string }): string {
  return run.variant === undefined ? reportDir : join(reportDir, runFolder(run));
}

/** Say once why the run stopped: "interrupted" with how far it got, or the harness error in full. */
function reportStop(
  stop: RunStop,
  guard: CliRunGuard,
  results: readonly SuiteResult[],
  ctx: CliContext,
  out: (text: string) => void,
): void {
  const checks = results.flatMap((r) => r.checks);
  const finished = checks.filter((c) => c.skipKind !== 'not-run').length;
  const progress = `${finished} of ${checks.length} checks finished; the rest are marked not run`;
  if (stop.kind === 'harness-error') {
    const detail = guard.harnessErrors.map(describeUncaught).join('\n');
    // The guard's stop is an uncaught error; a suite's own, a HarnessBug one of its checks threw.
    const what =
      guard.stop !== undefined
        ? 'an uncaught error stopped the run: this is a bug of wirecheck (or of a suite), please report it with the lines below'
        : `${stop.message}. Please report it with this line`;
    reportError(
      ctx.stderr,
      new WirecheckError('WC_INTERNAL', `${what}. ${progress}.${detail === '' ? '' : `\n${detail}`}`),
    );
    return;
  }
  out(`${stop.message}: ${progress}`);
}
