// `wirecheck/vitest`: run a suite inside your own vitest files. vitest is a peer: only this
// module imports it, so the rest of wirecheck works without it.
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type AnySuite, assertOnlyMatches, resolveSuite, type SuiteRunOptions, shardOption } from '../api.js';
import { failsRun, markCheck } from '../harness/baseline.js';
import { checkBudgetMs, openAllowanceMs } from '../harness/budget.js';
import type { PropertyReplay, Suite } from '../harness/check.js';
import { readCounterexampleSync, replaySettings } from '../harness/counterexamples.js';
import type { CheckResult } from '../harness/results.js';
import { randomSeed, runCheck, selectChecks } from '../harness/run-suite.js';
import { selectShard } from '../harness/shard.js';
import { shownTarget } from '../harness/shown-target.js';
import { formatCheck } from '../reporters/console.js';

export interface DescribeSuiteOptions extends Omit<SuiteRunOptions, 'onStart' | 'onResult' | 'replay'> {
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
  const settings = {
    seed,
    runs,
    full,
    budgetScale,
    ...(replaying === undefined ? {} : { replay: replaying }),
  };
  const checks = selectShard(selectChecks(suite.checks, options.only, full), shardOption(options.shard));
  const title =
    options.title ?? `wirecheck ${suite.name} against ${shownTarget(suite, target)} (seed ${seed})`;

  describe(title, () => {
    let ctx: { close(): Promise<void> } | undefined;
    beforeAll(
      async () => {
        ctx = await suite.open(target, { ...settings, checks: checks.map((c) => c.id) });
      },
      options.openTimeoutMs ?? openAllowanceMs(budgetScale, suite.openMs?.(target)),
    );
    afterAll(async () => {
      await ctx?.close();
    });
    for (const check of checks) {
      const timeout = checkBudgetMs(check, budgetScale) + MARGIN_MS;
      test(check.id, { timeout }, async (context) => {
        if (ctx === undefined)
          throw new Error(`suite ${suite.name} was not opened (see the beforeAll error)`);
        const raw = await runCheck(suite, target, check, ctx, settings);
        const outcome = testOutcomeOf(markCheck(raw, options.baseline, strict), strict);
        if (outcome.kind === 'skip') context.skip(outcome.note);
        if (outcome.kind === 'fail') throw new ConformanceFailure(outcome.message);
        if (outcome.kind === 'warn') await context.annotate(outcome.note, 'warning');
      });
    }
  });
}
