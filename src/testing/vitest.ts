// `wirecheck/vitest`: run a suite inside your own vitest files. vitest is a peer: only this
// module imports it, so the rest of wirecheck works without it.
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type AnySuite, assertOnlyMatches, resolveSuite, type SuiteRunOptions, shardOption } from '../api.js';
import { failsRun, markCheck } from '../harness/baseline.js';
import { checkBudgetMs, formatBudget, openAllowanceMs } from '../harness/budget.js';
import type { PropertyReplay, Suite } from '../harness/check.js';
import { readCounterexampleSync, replaySettings } from '../harness/counterexamples.js';
import type { CheckResult } from '../harness/results.js';
import { randomSeed, runCheck, selectChecks } from '../harness/run-suite.js';
import { selectShard } from '../harness/shard.js';
import { shownTarget } from '../harness/shown-target.js';
import { notRunMessage, stopOf } from '../harness/stop.js';
import { formatCheck } from '../reporters/console.js';

/**
 * The run options that mean nothing here: vitest schedules the tests (so no `jobs` or shared
 * `slots`), and reports their start and end itself (so no progress callbacks).
 */
type VitestOwned = 'onStart' | 'onResult' | 'onBegin' | 'onDispatched' | 'replay' | 'jobs' | 'slots';

/**
 * `signal` (once aborted, the tests not yet run are skipped as not run, a running check is
 * abandoned), `budgetMs` (the suite's whole budget, from the start of opening: the check running
 * when it runs out fails, the later ones are skipped as not run) and `reportDir` (a failed
 * property's counterexample file) work as in runSuite.
 */
export interface DescribeSuiteOptions extends Omit<SuiteRunOptions, VitestOwned> {
  /** Title of the describe block; default `wirecheck <suite> against <target> (seed N)`. */
  title?: string;
  /** Budget for opening the suite's context in beforeAll (default 60 s, times the target's budgetScale, or the suite's openMs where longer). */
  openTimeoutMs?: number;
  /**
   * A counterexample fixture (`<report-dir>/counterexamples/<check-id>.json`): run only its
   * check, with its seed, runs and tier, and of its property only the saved case (a
   * regression test). Not combined with `only`, `seed`, `runs`, `full` or `shard`.
   */
  replay?: string;
}

/** A check's vitest test gets a little more than the check's own budget (harness/budget.ts). */
const MARGIN_MS = 5_000;

/** A failed check as a test failure: the console's text (message, clause, expected, actual, reproduce). */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
}

/** What a check's result makes of its vitest test. */
export type TestOutcome =
  | { readonly kind: 'pass' }
  | { readonly kind: 'warn'; readonly note: string }
  | { readonly kind: 'skip'; readonly note: string }
  | { readonly kind: 'fail'; readonly message: string };

/**
 * A failure (or a warning under `strict`, or a stale baseline entry) fails the test with the
 * console's text of the check; a skip or an expected failure skips it with the reason; a
 * warning passes with a note.
 */
export function testOutcomeOf(result: CheckResult, strict: boolean): TestOutcome {
  if (failsRun(result, strict)) return { kind: 'fail', message: formatCheck(result, { color: false }) };
  if (result.baseline?.status === 'expected-failure') {
    return { kind: 'skip', note: `expected failure (baseline): ${result.baseline.reason}` };
  }
  if (result.status === 'skip') {
    const note = result.message || 'skipped by the check';
    // Judged nothing: a reader of the test report must not take it for a skip by design.
    return { kind: 'skip', note: result.skipKind === 'not-exercised' ? `not exercised: ${note}` : note };
  }
  if (result.status === 'warn')
    return { kind: 'warn', note: `warning: ${result.message} [${result.clause}]` };
  return { kind: 'pass' };
}

/** The options with a `replay` fixture's check, seed, runs and tier in place, and its case. */
function withReplay(
  suite: string,
  given: DescribeSuiteOptions,
): { options: DescribeSuiteOptions; replaying?: PropertyReplay } {
  const { replay: file, ...rest } = given;
  if (file === undefined) return { options: given };
  const { replay, ...run } = replaySettings(readCounterexampleSync(file), file, suite, rest);
  return { options: { ...rest, ...run }, replaying: replay };
}

/**
 * Register a describe block with one vitest test per selected check of a suite. The suite's
 * context is opened once in beforeAll and closed in afterAll. A passing check passes, a
 * warning passes with an annotation (or fails under `strict`), a failure fails with the
 * message, expected/actual and the reproduce line, a skip (or an expected failure of the
 * baseline) is skipped with its reason.
 *
 *     describeSuite('runner', { runner: 'python my_runner.py' }, { seed: 1, only: ['runner.output.'] })
 */
export function describeSuite(
  name: string,
  targetOptions: Record<string, unknown>,
  options?: DescribeSuiteOptions,
): void;
export function describeSuite<T, C>(suite: Suite<T, C>, target: T, options?: DescribeSuiteOptions): void;
export function describeSuite(
  suiteOrName: string | AnySuite,
  targetOrOptions: unknown,
  given: DescribeSuiteOptions = {},
): void {
  const { suite, target } =
    typeof suiteOrName === 'string'
      ? resolveSuite(suiteOrName, (targetOrOptions ?? {}) as Record<string, unknown>)
      : { suite: suiteOrName, target: targetOrOptions };
  const { options, replaying } = withReplay(suite.name, given);
  assertOnlyMatches(suite, options.only);
  const seed = options.seed ?? randomSeed();
  const full = options.full ?? false;
  const runs = options.runs ?? (full ? 1000 : 100);
  const strict = options.strict ?? false;
  const budgetScale = suite.budgetScale?.(target) ?? 1;
  const { signal, budgetMs, reportDir } = options;
  const base = { seed, runs, full, budgetScale, ...(replaying === undefined ? {} : { replay: replaying }) };
  const settings = {
    ...base,
    ...(reportDir === undefined ? {} : { reportDir }),
    ...(signal === undefined ? {} : { stop: signal }),
    ...(budgetMs === undefined ? {} : { suiteBudgetMs: budgetMs }),
  };
  const checks = selectShard(selectChecks(suite.checks, options.only, full), shardOption(options.shard));
  const title =
    options.title ?? `wirecheck ${suite.name} against ${shownTarget(suite, target)} (seed ${seed})`;

  const openTimeout = options.openTimeoutMs ?? openAllowanceMs(budgetScale, suite.openMs?.(target));
  describe(title, () => {
    let ctx: { close(): Promise<void> } | undefined;
    /** performance.now() at which `budgetMs` runs out, once opening starts. */
    let deadline: number | undefined;
    beforeAll(
      async () => {
        if (budgetMs !== undefined) deadline = performance.now() + budgetMs;
        if (signal?.aborted) return;
        const env = { ...base, checks: checks.map((c) => c.id) };
        const opening = suite.open(target, signal === undefined ? env : { ...env, signal });
        ctx = deadline === undefined ? await opening : await openBy(suite.name, opening, deadline, budgetMs);
      },
      budgetMs === undefined ? openTimeout : Math.min(openTimeout, budgetMs + MARGIN_MS),
    );
    afterAll(async () => {
      await ctx?.close();
    });
    for (const check of checks) {
      // The harness cuts a check at its budget (or the suite's) with its own message: vitest's timeout is the backstop.
      const own = checkBudgetMs(check, budgetScale);
      const timeout = (budgetMs === undefined ? own : Math.min(own, budgetMs)) + MARGIN_MS;
      test(check.id, { timeout }, async (context) => {
        // As runSuite does between checks: a stopped run or a used-up budget starts no more checks.
        if (signal?.aborted) context.skip(notRunMessage(stopOf(signal)));
        if (deadline !== undefined && performance.now() >= deadline) {
          context.skip(`not run: the suite's time budget of ${formatBudget(budgetMs ?? 0)} was used up`);
        }
        if (ctx === undefined)
          throw new Error(`suite ${suite.name} was not opened (see the beforeAll error)`);
        const raw = await runCheck(suite, target, check, ctx, {
          ...settings,
          ...(deadline === undefined ? {} : { deadline }),
        });
        const outcome = testOutcomeOf(markCheck(raw, options.baseline, strict), strict);
        if (outcome.kind === 'skip') context.skip(outcome.note);
        if (outcome.kind === 'fail') throw new ConformanceFailure(outcome.message);
        if (outcome.kind === 'warn') await context.annotate(outcome.note, 'warning');
      });
    }
  });
}

/**
 * A suite's context if it opens before `deadline`; else an error as runSuite's, and the context
 * that opens late is closed.
 */
async function openBy<C extends { close(): Promise<unknown> }>(
  name: string,
  opening: Promise<C>,
  deadline: number,
  budgetMs: number | undefined,
): Promise<C> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, deadline - performance.now()));
  });
  try {
    const first = await Promise.race([opening, late]);
    if (first !== 'late') return first;
    opening.then((ctx) => ctx.close()).catch(() => {});
    throw new Error(
      `suite ${name} did not finish opening (starting its servers, reaching the target) within its time budget of ${formatBudget(budgetMs ?? 0)} (budgetMs)`,
    );
  } finally {
    clearTimeout(timer);
  }
}
