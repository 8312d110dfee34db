import { availableParallelism } from 'node:os';
import { clip } from '../protocol/clip.js';
import { mapJsonValue } from '../protocol/json/map-values.js';
import { VERSION } from '../version.js';
import { type BareStart, endBareStart, measureBareStart } from './bare-start.js';
import { checkBudgetMs, formatBudget, suiteBudgetMs } from './budget.js';
import {
  type Check,
  type CheckEnv,
  CheckFailure,
  CheckSkipped,
  HarnessBug,
  NotExercised,
  type PropertyReplay,
  type Suite,
  TargetGone,
  TargetUnavailable,
  WIRECHECK_BLAMED,
} from './check.js';
import { withSpawner } from './containment/index.js';
import { writeCounterexample } from './counterexamples.js';
import { boundEvidence } from './evidence-bounds.js';
import { harnessBugOf } from './programmer-error.js';
import { PropertyFailure, propertyRunsOf } from './property.js';
import { RESULT_TEXT_LIMITS } from './result-text.js';
import { type CheckResult, type RunStop, type SuiteResult, selectionOf, summarize } from './results.js';
import { dispatch } from './schedule.js';
import { type Shard, selectShard } from './shard.js';
import { shownTarget, shownTargetArgs } from './shown-target.js';
import { leaseSlot, NO_LEASE } from './slot-lease.js';
import type { Slots } from './slots.js';
import { notRunMessage, stopOf } from './stop.js';
import { countingStarts, type StartCounter } from './target-starts.js';

export interface RunOptions {
  /** Seed for the whole run; each check derives its randomness from it. Random when absent. */
  seed?: number;
  /** fast-check runs per property (default 100 quick, 1000 with --full). */
  runs?: number;
  /** Run only these check ids (exact ids or prefixes ending in '.'). */
  only?: readonly string[];
  full?: boolean;
  /** Run only this part of the selected checks (applied after `only` and `full`). */
  shard?: Shard;
  /** Called once the checks are selected, before the suite opens (for a header). */
  onBegin?: (plan: RunPlan) => void;
  /** Called after every check, for progress output. */
  onResult?: (result: CheckResult, done: number, total: number) => void;
  /** Called before every check. */
  onStart?: (checkId: string, index: number, total: number) => void;
  /**
   * Save the shrunk counterexample of every failed property under
   * `<reportDir>/counterexamples/<check-id>.json` (the result names the file and a replay line).
   */
  reportDir?: string;
  /** Run only this saved case of each property (`--replay`; select its check with `only`). */
  replay?: PropertyReplay;
  /**
   * Stops the run early (an interrupt, a harness error): the running check is abandoned (its
   * own signal aborted) and reported not run, so are the checks after it, the suite is
   * closed and the result returned. Abort it with a RunStop as the reason to name why.
   */
  signal?: AbortSignal;
  /** The suite's total time budget in ms (default: suiteBudgetMs of the selected checks). */
  budgetMs?: number;
  /**
   * How many checks run at once in a suite whose checks may run concurrently (`--jobs`;
   * default the machine's available parallelism). 1: one after another, in catalogue order.
   * Output and results keep catalogue order either way.
   */
  jobs?: number;
  /**
   * Job slots shared with the other suites of a run (`wirecheck all` overlapping its suites):
   * the checks take theirs from this pool instead of `jobs` slots of the suite's own, and a
   * check that runs alone takes every slot of it. A suite whose checks may not run
   * concurrently still runs them one at a time, each holding a slot of the pool.
   */
  slots?: Slots;
  /**
   * Called once, when the run has started every check it will start before the ones that run
   * alone or last (or stopped starting checks, or ended): the next suite of a shared run may
   * open. A suite whose checks run one at a time calls it once it is open.
   */
  onDispatched?: () => void;
}

/** `--jobs` when not given: as many checks at once as the machine runs processes in parallel. */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

/** `--jobs` as the run asked for it (the default when absent), whether or not the suite runs checks concurrently. */
function requestedJobs(options: Pick<RunOptions, 'jobs'>): number {
  return Math.max(1, Math.floor(options.jobs ?? defaultJobs()));
}

/** What a run is about to do, known before the suite opens. */
export interface RunPlan {
  readonly suite: string;
  readonly target: string;
  readonly seed: number;
  readonly runs: number;
  readonly full: boolean;
  readonly shard?: Shard;
  readonly checks: readonly { readonly id: string; readonly tier: 'quick' | 'full' }[];
  /** The tiers of the selected checks, quick first (a full-tier check picked with --only makes it full). */
  readonly tiers: readonly ('quick' | 'full')[];
  readonly budgetMs: number;
  /** Checks run at once: `jobs` for a suite whose checks may run concurrently, else 1. */
  readonly jobs: number;
}

/** What runCheck needs of the run. */
export interface CheckSettings {
  seed: number;
  runs: number;
  full: boolean;
  reportDir?: string;
  replay?: PropertyReplay;
  /** The run's stop signal: when it aborts, the check is abandoned and reported not run. */
  stop?: AbortSignal;
  /** performance.now() at which the suite's time budget runs out: the check is cut there. */
  deadline?: number;
  /** The suite's whole budget, for the message of a check cut by it. */
  suiteBudgetMs?: number;
  /** The target's `budgetScale`: the check's budget is its own times this (default 1). */
  budgetScale?: number;
  /** Job slots the check may borrow to run its property cases concurrently. */
  slots?: Slots;
}

/** How long closing a suite may take (its mock servers, its target's processes). */
const CLOSE_BUDGET_MS = 30_000;
/** ...when the run was stopped: the user is waiting for the program to end. */
const CLOSE_BUDGET_STOPPED_MS = 1_000;

export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

export function selectChecks<C extends { id: string; tier?: 'quick' | 'full' }>(
  checks: readonly C[],
  only: readonly string[] | undefined,
  full: boolean,
): C[] {
  return checks.filter((c) => {
    if (only && only.length > 0) {
      return only.some((o) => c.id === o || (o.endsWith('.') && c.id.startsWith(o)));
    }
    return full || c.tier !== 'full';
  });
}

/** The tiers present among checks, quick first. */
export function tiersOf(checks: readonly { tier?: 'quick' | 'full' }[]): ('quick' | 'full')[] {
  const tiers = new Set(checks.map((c) => c.tier ?? 'quick'));
  return (['quick', 'full'] as const).filter((t) => tiers.has(t));
}

/** The selected checks of a run (only, tier, shard) and what it will look like. */
export function planRun<T, C>(
  suite: Suite<T, C>,
  target: string,
  options: RunOptions & { seed: number; runs: number; full: boolean; budgetScale?: number; openMs?: number },
): { plan: RunPlan; checks: Check<C>[] } {
  const jobs = suite.concurrent === true ? requestedJobs(options) : 1;
  const checks = selectShard(selectChecks(suite.checks, options.only, options.full), options.shard);
  const plan: RunPlan = {
    suite: suite.name,
    target,
    seed: options.seed,
    runs: options.runs,
    full: options.full,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    checks: checks.map((c) => ({ id: c.id, tier: c.tier ?? 'quick' })),
    tiers: tiersOf(checks),
    budgetMs: options.budgetMs ?? suiteBudgetMs(checks, options.budgetScale, options.openMs),
    jobs,
  };
  return { plan, checks };
}

/**
 * Run a suite against a target: every selected check, in catalogue order, each within its
 * budget and all within the suite's. A check that sees the target go (TargetGone), the
 * suite's budget running out, or `options.signal` stop the run: the checks not reached are
 * reported not run and `stopped` says why, once. Throws TargetUnavailable when the suite
 * cannot open (the target cannot be started or reached at all).
 */
export async function runSuite<T, C>(
  suite: Suite<T, C>,
  target: T,
  options: RunOptions = {},
): Promise<SuiteResult> {
  return withSpawner(() => runWithSpawner(suite, target, options));
}

async function runWithSpawner<T, C>(
  suite: Suite<T, C>,
  target: T,
  options: RunOptions,
): Promise<SuiteResult> {
  const counter: StartCounter = { count: 0 };
  const result = await countingStarts(counter, () => runCounted(suite, target, options));
  const bare = suite.bareStart?.(target);
  if (bare === undefined) return result;
  const jobs = requestedJobs(options);
  const counted = {
    what: bare.what,
    count: counter.count,
    ...(bare.fasterStart === undefined ? {} : { fasterStart: bare.fasterStart }),
    ...(suite.startsAhead === true && jobs > 1 ? { atOnce: jobs } : {}),
  };
  if (counter.count === 0 || result.stopped !== undefined) {
    endBareStart(bare);
    return counter.count === 0 ? result : { ...result, targetStarts: counted };
  }
  const bareStartMs = await measureBareStartAlone(bare, options);
  return { ...result, targetStarts: { ...counted, ...(bareStartMs === undefined ? {} : { bareStartMs }) } };
}

/**
 * The bare start timed on every job slot of the run's pool, when the suite shares one
 * (`wirecheck all`), as a check that runs alone: timed beside the other suites' checks, it
 * measured their load and the harness's, not the target (661-961 ms for a 200 ms start on
 * 2 cores, even on one slot), and the summary then blamed the target's start-up.
 */
async function measureBareStartAlone(bare: BareStart, options: RunOptions): Promise<number | undefined> {
  const release = await holdSlots(options.slots, { schedule: 'alone' });
  try {
    return await measureBareStart(bare, options.signal);
  } finally {
    release();
  }
}

async function runCounted<T, C>(suite: Suite<T, C>, target: T, given: RunOptions): Promise<SuiteResult> {
  const onDispatched = given.onDispatched;
  let dispatched = false;
  const options: RunOptions = {
    ...given,
    onDispatched: () => {
      if (dispatched) return;
      dispatched = true;
      onDispatched?.();
    },
  };
  const seed = options.seed ?? randomSeed();
  const full = options.full ?? false;
  const runs = options.runs ?? defaultRuns(full);
  const startedAt = new Date();
  const started = performance.now();
  const budgetScale = suite.budgetScale?.(target) ?? 1;
  const openMs = suite.openMs?.(target);
  const { plan, checks } = planRun(suite, shownTarget(suite, target), {
    ...options,
    seed,
    runs,
    full,
    budgetScale,
    ...(openMs === undefined ? {} : { openMs }),
  });
  options.onBegin?.(plan);
  const deadline = started + plan.budgetMs;
  const results: CheckResult[] = [];
  const warnings: string[] = [];
  const finish = (stop: RunStop | undefined): SuiteResult => ({
    suite: suite.name,
    target: plan.target,
    seed,
    summary: summarize(results),
    checks: results,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    wirecheck: VERSION,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    runs,
    selection: selectionOf(options.only, plan.full),
    budgetMs: plan.budgetMs,
    jobs: plan.jobs,
    ...(stop === undefined ? {} : { stopped: stop }),
    ...(warnings.length === 0 ? {} : { warnings: [...warnings] }),
  });
  const notRunFrom = (index: number, stop: RunStop) => {
    for (const [i, check] of checks.entries()) {
      if (i < index) continue;
      const result = notRunResult(suite.name, check, notRunMessage(stop));
      results.push(result);
      options.onResult?.(result, i + 1, checks.length);
    }
  };

  const opened = await openWithin(
    suite,
    target,
    { seed, runs, full, jobs: requestedJobs(options), checks: checks.map((c) => c.id) },
    options.signal,
    deadline,
    plan.budgetMs,
  );
  if (opened.stop !== undefined) {
    options.onDispatched?.();
    notRunFrom(0, opened.stop);
    return finish(opened.stop);
  }
  const ctx = opened.ctx;
  let stop: RunStop | undefined;
  const settingsOf = (slots: Slots | undefined): CheckSettings => ({
    seed,
    runs,
    full,
    deadline,
    suiteBudgetMs: plan.budgetMs,
    budgetScale,
    ...(options.reportDir === undefined ? {} : { reportDir: options.reportDir }),
    ...(options.replay === undefined ? {} : { replay: options.replay }),
    ...(options.signal === undefined ? {} : { stop: options.signal }),
    ...(slots === undefined ? {} : { slots }),
  });
  /** Whether the run must stop before starting another check (sets `stop`). */
  const mustStop = (): boolean => {
    stop ??= options.signal?.aborted ? stopOf(options.signal) : undefined;
    if (stop === undefined && performance.now() >= deadline) stop = budgetStop(plan.budgetMs, undefined);
    return stop !== undefined;
  };
  /** After a check: wirecheck failed, the target went away, the run was stopped or its budget is used up. */
  const noteStop = (check: Check<C>, { result, cut, bug }: CheckRun): void => {
    if (stop !== undefined) return;
    if (bug !== undefined) {
      stop = {
        kind: 'harness-error',
        message: `wirecheck failed during ${check.id} (${WIRECHECK_BLAMED}): ${bug.message}`,
      };
    } else if (result.skipKind === 'not-run' && options.signal?.aborted) stop = stopOf(options.signal);
    else if (result.targetGone === true) {
      stop = { kind: 'target-gone', message: `the target stopped during ${check.id}: ${result.message}` };
    } else if (cut === 'suite-budget' || performance.now() >= deadline) {
      stop = budgetStop(plan.budgetMs, check.id);
    }
  };
  try {
    if (plan.jobs <= 1) {
      // One check at a time holds at most one slot of a shared pool (every slot, alone, once
      // the checks before it have given theirs back): the next suite may open at once.
      options.onDispatched?.();
      for (const [i, check] of checks.entries()) {
        if (mustStop() && stop !== undefined) {
          notRunFrom(i, stop);
          break;
        }
        options.onStart?.(check.id, i, checks.length);
        const held = await holdSlots(options.slots, check);
        // The wait for a slot of a shared pool may outlast the run.
        if (mustStop() && stop !== undefined) {
          held();
          notRunFrom(i, stop);
          break;
        }
        const ran = await runCheckCut(suite, target, check, ctx, settingsOf(undefined)).finally(held);
        results.push(ran.result);
        options.onResult?.(ran.result, i + 1, checks.length);
        noteStop(check, ran);
      }
    } else {
      // Checks run concurrently and finish in any order; results are reported in catalogue order.
      const done: (CheckResult | undefined)[] = checks.map(() => undefined);
      let reported = 0;
      // Held after a target gone: what follows it is decided once every check has ended.
      let holding = false;
      const report = (final = false) => {
        for (let r = done[reported]; r !== undefined && (final || !holding); r = done[reported]) {
          results.push(r);
          reported++;
          options.onResult?.(r, reported, checks.length);
          if (r.targetGone === true) holding = true;
        }
      };
      await dispatch(checks, {
        jobs: plan.jobs,
        waitsAtOnce: Math.max(plan.jobs, suite.waitsAtOnce ?? plan.jobs),
        ...(options.slots === undefined ? {} : { slots: options.slots }),
        ...(options.onDispatched === undefined ? {} : { onDispatched: options.onDispatched }),
        stopped: mustStop,
        start: async (i, slots) => {
          const check = checks[i] as Check<C>;
          // The progress line counts the checks reported so far, as with one check at a time.
          options.onStart?.(check.id, reported, checks.length);
          const ran = await runCheckCut(suite, target, check, ctx, settingsOf(slots));
          done[i] = ran.result;
          noteStop(check, ran);
          report();
        },
      });
      // As with one check at a time: the target went away at the first check (in catalogue
      // order) that saw it go, and the checks after that one are not run, even those that ran beside it.
      const gone = done.findIndex((r) => r?.targetGone === true);
      const goneResult = done[gone];
      if (goneResult !== undefined && stop?.kind === 'target-gone') {
        stop = {
          kind: 'target-gone',
          message: `the target stopped during ${goneResult.id}: ${goneResult.message}`,
        };
      }
      const reason = notRunMessage(stop ?? { kind: 'budget', message: 'the run stopped' });
      for (const [i, check] of checks.entries()) {
        if (done[i] === undefined || (gone >= 0 && i > gone && stop?.kind === 'target-gone')) {
          done[i] = notRunResult(suite.name, check, reason);
        }
      }
      report(true);
    }
  } finally {
    options.onDispatched?.();
    const left = await closeWithin(ctx, stop === undefined ? CLOSE_BUDGET_MS : CLOSE_BUDGET_STOPPED_MS);
    // A warning may quote the target (a path it made, an error naming its command): scrubbed as results are.
    const scrub = suite.scrubber?.(target);
    if (left !== undefined) warnings.push(scrub === undefined ? left : scrub(left));
  }
  return finish(stop);
}

/**
 * A check of a suite run one check at a time (or a suite's bare start) takes its slots of a
 * pool shared with other suites: every slot if it runs alone, none if it only waits on time,
 * else one. Resolves to the function that gives them back.
 */
async function holdSlots(
  slots: Slots | undefined,
  check: Pick<Check<unknown>, 'schedule'>,
): Promise<() => void> {
  if (slots === undefined || check.schedule === 'waits') return () => {};
  const count = check.schedule === 'alone' ? slots.size : 1;
  await slots.acquire(count);
  return () => slots.release(count);
}

function budgetStop(budgetMs: number, during: string | undefined): RunStop {
  const where = during === undefined ? '' : ` (during ${during})`;
  return {
    kind: 'budget',
    message: `the suite's time budget of ${formatBudget(budgetMs)} was used up${where}`,
  };
}

type Opened<C> =
  | { ctx: C & { close(): Promise<string | undefined | void> }; stop?: undefined }
  | { stop: RunStop };

/**
 * Open the suite unless the run is stopped first; a context that opens after the stop is
 * closed as soon as it arrives. Opening past the suite's whole budget is a target that
 * cannot be reached.
 */
async function openWithin<T, C>(
  suite: Suite<T, C>,
  target: T,
  env: { seed: number; runs: number; full: boolean; jobs: number; checks: readonly string[] },
  signal: AbortSignal | undefined,
  deadline: number,
  budgetMs: number,
): Promise<Opened<C>> {
  if (signal?.aborted) return { stop: stopOf(signal) };
  const opening = suite.open(target, signal === undefined ? env : { ...env, signal }).catch((e: unknown) => {
    // The target's answer quoted in the message may echo a credential it was given.
    const scrub = suite.scrubber?.(target);
    if (!(e instanceof TargetUnavailable) || scrub === undefined) throw e;
    throw new TargetUnavailable(scrub(e.message), { cause: e.cause });
  });
  const cut = cutter(signal, deadline - performance.now());
  try {
    const first = await Promise.race([opening.then((ctx) => ({ ctx }) as const), cut.promise]);
    if ('ctx' in first) return { ctx: first.ctx };
    // Whatever opens late is closed; its errors belong to nobody now.
    opening.then((ctx) => ctx.close()).catch(() => {});
    if (first.cut === 'stop' && signal !== undefined) return { stop: stopOf(signal) };
    throw new TargetUnavailable(
      `suite ${suite.name} did not finish opening (starting its servers, reaching the target) within its time budget of ${formatBudget(budgetMs)}`,
    );
  } finally {
    cut.dispose();
  }
}

/**
 * Close a suite's context, waiting at most `ms` (a close that hangs must not hold the run).
 * Resolves to a warning when the close left something behind or failed: the checks' verdicts
 * were reached before it, so a failing close must not take them away.
 */
async function closeWithin(
  ctx: { close(): Promise<string | undefined | void> },
  ms: number,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          `closing the suite did not finish within ${ms} ms: processes it started or files it worked in may remain`,
        ),
      ms,
    );
  });
  try {
    return (await Promise.race([ctx.close(), late])) ?? undefined;
  } catch (e) {
    return `closing the suite failed: ${e instanceof Error ? e.message : String(e)}`;
  } finally {
    clearTimeout(timer);
  }
}

/** A promise that settles when the run is stopped or `ms` pass, whichever is first. */
function cutter(
  signal: AbortSignal | undefined,
  ms: number,
): { promise: Promise<{ cut: 'stop' | 'time' }>; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const promise = new Promise<{ cut: 'stop' | 'time' }>((resolve) => {
    timer = setTimeout(() => resolve({ cut: 'time' }), Math.max(0, ms));
    onAbort = () => resolve({ cut: 'stop' });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  return {
    promise,
    dispose() {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Why runCheck stopped waiting for a check body. */
type Cut =
  | { readonly kind: 'timeout'; readonly budget: number }
  | { readonly kind: 'suite-budget' }
  | { readonly kind: 'stop' };

/**
 * Run one check of an opened suite within its budget and turn whatever happens into a
 * result (the vitest helper runs checks one per test through this). The body is raced
 * against its budget, the suite's deadline and the run's stop signal: a body that ignores
 * its abort signal cannot hold the run.
 */
export async function runCheck<T, C>(
  suite: Suite<T, C>,
  target: T,
  check: Check<C>,
  ctx: C,
  settings: CheckSettings,
): Promise<CheckResult> {
  return (await runCheckCut(suite, target, check, ctx, settings)).result;
}

/** A check's result, what cut its body short if anything did, and the HarnessBug it threw if it did. */
interface CheckRun {
  readonly result: CheckResult;
  readonly cut?: Cut['kind'];
  readonly bug?: HarnessBug;
}

/** runCheck, also saying what cut the body short and what bug of wirecheck it met. */
async function runCheckCut<T, C>(
  suite: Suite<T, C>,
  target: T,
  check: Check<C>,
  ctx: C,
  settings: CheckSettings,
): Promise<CheckRun> {
  const { seed, full } = settings;
  const t0 = performance.now();
  const controller = new AbortController();
  const budget = checkBudgetMs(check, settings.budgetScale);
  // `slots` is given to an ordinary check of a concurrent run, which holds one of them.
  // Time in line to take a lent slot back is not the check's: its budget stands still meanwhile.
  let lineMs = 0;
  let inLineSince: number | undefined;
  let runOutInLine: (() => void) | undefined;
  const lease =
    settings.slots === undefined
      ? NO_LEASE
      : leaseSlot(settings.slots, {
          enter: () => {
            inLineSince = performance.now();
          },
          leave: () => {
            lineMs += performance.now() - (inLineSince ?? performance.now());
            inLineSince = undefined;
            const resume = runOutInLine;
            runOutInLine = undefined;
            resume?.();
          },
        });
  const env: CheckEnv = {
    seed,
    runs: settings.runs,
    full,
    signal: controller.signal,
    ...(settings.replay === undefined ? {} : { replay: settings.replay }),
    // A property-based check runs more of its cases at once on the free slots it can borrow.
    ...(settings.slots === undefined ? {} : { slots: settings.slots }),
    idle: (work) => lease.idle(work),
  };
  const left = settings.deadline === undefined ? Number.POSITIVE_INFINITY : settings.deadline - t0;
  const cutBySuite = left < budget;
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const cut = new Promise<Cut>((resolve) => {
    const runOut = () => {
      if (cutBySuite) return resolve({ kind: 'suite-budget' });
      if (inLineSince !== undefined) {
        runOutInLine = runOut;
        return;
      }
      const toDeadline = (settings.deadline ?? Number.POSITIVE_INFINITY) - performance.now();
      if (toDeadline <= 0) return resolve({ kind: 'suite-budget' });
      const ownLeft = t0 + budget + lineMs - performance.now();
      if (ownLeft > 0) timer = setTimeout(runOut, Math.min(ownLeft, toDeadline));
      else resolve({ kind: 'timeout', budget });
    };
    timer = setTimeout(runOut, Math.max(0, Math.min(budget, left)));
    onStop = () => resolve({ kind: 'stop' });
    if (settings.stop?.aborted) onStop();
    else settings.stop?.addEventListener('abort', onStop, { once: true });
  });
  let outcome: Outcome;
  let thrown: unknown;
  let cutBy: Cut['kind'] | undefined;
  try {
    const body = check.run(ctx, env).then(() => undefined);
    const first = await Promise.race([body, cut]);
    if (first === undefined) outcome = { status: 'pass', message: '' };
    else {
      // The body may still settle later: nobody waits for it, and its rejection is expected.
      body.catch(() => {});
      controller.abort();
      cutBy = first.kind;
      if (first.kind === 'stop') {
        outcome = { status: 'skip', skipKind: 'not-run', message: '' };
      } else if (first.kind === 'suite-budget') {
        // Like a target that went away: the run cannot go on, whatever the check's level.
        outcome = {
          status: 'fail',
          message: `the suite's time budget of ${formatBudget(settings.suiteBudgetMs ?? 0)} was used up while this check ran (${formatBudget(performance.now() - t0)}); the checks after it are not run`,
        };
      } else {
        thrown = new CheckFailure(`check did not finish within ${first.budget} ms`);
        outcome = outcomeOf(thrown, check.level);
      }
    }
  } catch (e) {
    thrown = harnessBugOf(e) ?? e;
    outcome = outcomeOf(thrown, check.level);
  } finally {
    clearTimeout(timer);
    if (onStop !== undefined) settings.stop?.removeEventListener('abort', onStop);
    controller.abort();
    await lease.end();
  }
  const scrub = suite.scrubber?.(target);
  if (scrub !== undefined) outcome = mapJsonValue(outcome, { string: scrub });
  // The bug's text stops the suite: bounded and scrubbed as the result's own message is.
  const bug =
    thrown instanceof HarnessBug
      ? new HarnessBug(clip(scrub?.(thrown.message) ?? thrown.message, RESULT_TEXT_LIMITS.message), {
          cause: thrown,
        })
      : undefined;
  if (cutBy === 'stop' && settings.stop !== undefined) {
    const message = `${notRunMessage(stopOf(settings.stop))} while it ran`;
    return {
      result: { ...notRunResult(suite.name, check, message), durationMs: Math.round(performance.now() - t0) },
      cut: cutBy,
    };
  }
  const runs = propertyRunsOf(controller.signal);
  const result: CheckResult = {
    id: check.id,
    suite: suite.name,
    clause: check.clause,
    description: check.description,
    level: check.level,
    tier: check.tier ?? 'quick',
    ...dropUndefined(outcome),
    durationMs: Math.round(performance.now() - t0),
    ...(runs === undefined ? {} : { runs }),
    ...(cutBy === 'suite-budget' ? { budgetUsedUp: true } : {}),
  };
  if (result.status === 'fail' || result.status === 'warn') {
    const args = shownTargetArgs(suite, target);
    result.reproduce = reproduceLine(suite.name, args, seed, check.id, full, settings.runs);
    if (thrown instanceof PropertyFailure && settings.reportDir !== undefined) {
      try {
        result.counterexample = await writeCounterexample(settings.reportDir, {
          suite: suite.name,
          check: check.id,
          clause: check.clause,
          seed,
          runs: settings.runs,
          full,
          target: shownTarget(suite, target),
          targetArgs: shownTargetArgs(suite, target),
          message: result.message,
          property: thrown.counterexample,
        });
      } catch (e) {
        // The verdict stands without its file; the reports' own write says what is wrong with the directory.
        result.message += ` (the counterexample could not be saved: ${e instanceof Error ? e.message : String(e)})`;
      }
    }
  }
  return {
    result,
    ...(cutBy === undefined ? {} : { cut: cutBy }),
    ...(bug === undefined ? {} : { bug }),
  };
}

/** The record of a selected check that the run did not reach. */
export function notRunResult(
  suite: string,
  check: Pick<Check<unknown>, 'id' | 'clause' | 'description' | 'level' | 'tier'>,
  message: string,
): CheckResult {
  return {
    id: check.id,
    suite,
    clause: check.clause,
    description: check.description,
    level: check.level,
    tier: check.tier ?? 'quick',
    status: 'skip',
    skipKind: 'not-run',
    message,
    durationMs: 0,
  };
}

type Outcome = Pick<
  CheckResult,
  | 'status'
  | 'skipKind'
  | 'message'
  | 'expected'
  | 'actual'
  | 'evidence'
  | 'targetGone'
  | 'sharedCause'
  | 'labels'
>;

/** The outcome of what a check threw, its texts within RESULT_TEXT_LIMITS. */
function outcomeOf(e: unknown, level: 'must' | 'should'): Outcome {
  const o = unboundedOutcomeOf(e, level);
  const shown = (t: string | undefined) => (t === undefined ? undefined : clip(t, RESULT_TEXT_LIMITS.shown));
  return {
    ...o,
    message: clip(o.message, RESULT_TEXT_LIMITS.message),
    ...('expected' in o ? { expected: shown(o.expected) } : {}),
    ...('actual' in o ? { actual: shown(o.actual) } : {}),
    ...(o.sharedCause === undefined ? {} : { sharedCause: clip(o.sharedCause, RESULT_TEXT_LIMITS.message) }),
    ...(o.evidence === undefined ? {} : { evidence: boundEvidence(o.evidence) }),
  };
}

function unboundedOutcomeOf(e: unknown, level: 'must' | 'should'): Outcome {
  if (e instanceof HarnessBug) {
    return {
      status: 'skip',
      skipKind: 'not-run',
      message: `not run: wirecheck failed during this check (${WIRECHECK_BLAMED}, not of the target): ${e.message}`,
    };
  }
  if (e instanceof NotExercised) return { status: 'skip', skipKind: 'not-exercised', message: e.message };
  if (e instanceof CheckSkipped) return { status: 'skip', skipKind: 'not-applicable', message: e.message };
  // A target that went away fails the check that saw it go, whatever the check's level.
  if (e instanceof TargetGone) {
    return {
      status: 'fail',
      message: e.message,
      expected: e.expected,
      actual: e.actual,
      targetGone: true,
      sharedCause: e.sharedCause ?? e.message,
    };
  }
  const status = level === 'must' ? 'fail' : 'warn';
  if (e instanceof CheckFailure) {
    return {
      status,
      message: e.message,
      expected: e.expected,
      actual: e.actual,
      evidence: e.evidence,
      sharedCause: e.sharedCause,
      labels: e instanceof PropertyFailure && e.labels !== undefined ? [...e.labels] : undefined,
    };
  }
  // Anything else thrown by a check body is a failure of the target too: an error of the
  // target's making (a JSON text it sent that does not parse, a connection it reset). The
  // engine's errors at misused values never reach here: they are HarnessBugs (harnessBugOf).
  const err = e instanceof Error ? e : new Error(String(e));
  return { status, message: `${err.name}: ${err.message}` };
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** fast-check runs per property when `--runs` is not given: more in the full tier. */
export function defaultRuns(full: boolean): number {
  return full ? 1000 : 100;
}

/**
 * The command that runs one check again. `runs` is kept when it is not the tier's default:
 * the seed alone replays the same cases only with as many of them (a property that failed at
 * case 250 of 500 is never reached by the default 100).
 */
export function reproduceLine(
  suite: string,
  targetArgs: string[],
  seed: number,
  id: string,
  full: boolean,
  runs: number = defaultRuns(full),
): string {
  const args = ['npx', 'wirecheck', 'test', suite, ...targetArgs, '--seed', String(seed), '--only', id];
  if (full) args.push('--full');
  if (runs !== defaultRuns(full)) args.push('--runs', String(runs));
  return args.map(shellQuote).join(' ');
}
