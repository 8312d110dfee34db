import { VERSION } from '../version.js';
import {
  type Check,
  type CheckEnv,
  CheckFailure,
  CheckSkipped,
  NotExercised,
  type PropertyReplay,
  type Suite,
  TargetGone,
} from './check.js';
import { writeCounterexample } from './counterexamples.js';
import { PropertyFailure } from './property.js';
import { type CheckResult, type SuiteResult, summarize } from './results.js';
import { type Shard, selectShard } from './shard.js';

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
}

/** What runCheck needs of the run. */
export interface CheckSettings {
  seed: number;
  runs: number;
  full: boolean;
  reportDir?: string;
  replay?: PropertyReplay;
}

const DEFAULT_TIMEOUT_MS = 30_000;

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

/** Run a suite against a target: every selected check, in catalogue order, each with its budget. */
export async function runSuite<T, C>(
  suite: Suite<T, C>,
  target: T,
  options: RunOptions = {},
): Promise<SuiteResult> {
  const seed = options.seed ?? randomSeed();
  const full = options.full ?? false;
  const runs = options.runs ?? (full ? 1000 : 100);
  const startedAt = new Date();
  const started = performance.now();
  const checks = selectShard(selectChecks(suite.checks, options.only, full), options.shard);
  const ctx = await suite.open(target, { seed, runs, full });
  const results: CheckResult[] = [];
  let gone: string | undefined;
  try {
    for (const [i, check] of checks.entries()) {
      if (gone !== undefined) {
        const result = notRunResult(suite.name, check, `not run: ${gone}`);
        results.push(result);
        options.onResult?.(result, i + 1, checks.length);
        continue;
      }
      options.onStart?.(check.id, i, checks.length);
      const result = await runCheck(suite, target, check, ctx, {
        seed,
        runs,
        full,
        ...(options.reportDir === undefined ? {} : { reportDir: options.reportDir }),
        ...(options.replay === undefined ? {} : { replay: options.replay }),
      });
      results.push(result);
      options.onResult?.(result, i + 1, checks.length);
      if (result.targetGone === true) gone = `the target stopped during ${check.id}: ${result.message}`;
    }
  } finally {
    await ctx.close();
  }
  return {
    suite: suite.name,
    target: suite.describeTarget(target),
    seed,
    summary: summarize(results),
    checks: results,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    wirecheck: VERSION,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
  };
}

/**
 * Run one check of an opened suite within its budget and turn whatever happens into a
 * result (the vitest helper runs checks one per test through this).
 */
export async function runCheck<T, C>(
  suite: Suite<T, C>,
  target: T,
  check: Check<C>,
  ctx: C,
  settings: CheckSettings,
): Promise<CheckResult> {
  const { seed, full } = settings;
  const t0 = performance.now();
  const controller = new AbortController();
  const budget = check.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const env: CheckEnv = {
    seed,
    runs: settings.runs,
    full,
    signal: controller.signal,
    ...(settings.replay === undefined ? {} : { replay: settings.replay }),
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CheckFailure(`check did not finish within ${budget} ms`));
    }, budget);
  });
  let outcome: Outcome;
  let thrown: unknown;
  try {
    await Promise.race([check.run(ctx, env), timeout]);
    outcome = { status: 'pass', message: '' };
  } catch (e) {
    thrown = e;
    outcome = outcomeOf(e, check.level);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  const result: CheckResult = {
    id: check.id,
    suite: suite.name,
    clause: check.clause,
    description: check.description,
    level: check.level,
    tier: check.tier ?? 'quick',
    ...dropUndefined(outcome),
    durationMs: Math.round(performance.now() - t0),
  };
  if (result.status === 'fail' || result.status === 'warn') {
    result.reproduce = reproduceLine(suite.name, suite.targetArgs(target), seed, check.id, full);
    if (thrown instanceof PropertyFailure && settings.reportDir !== undefined) {
      result.counterexample = await writeCounterexample(settings.reportDir, {
        suite: suite.name,
        check: check.id,
        clause: check.clause,
        seed,
        runs: settings.runs,
        full,
        target: suite.describeTarget(target),
        targetArgs: suite.targetArgs(target),
        message: result.message,
        property: thrown.counterexample,
      });
    }
  }
  return result;
}

/** The record of a selected check that the run did not reach. */
export function notRunResult(suite: string, check: Check<unknown>, message: string): CheckResult {
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
  'status' | 'skipKind' | 'message' | 'expected' | 'actual' | 'evidence' | 'targetGone' | 'sharedCause'
>;

function outcomeOf(e: unknown, level: 'must' | 'should'): Outcome {
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
    };
  }
  // Anything else thrown by a check body is a failure of the target too (a crash of the
  // harness would have surfaced as a thrown TargetUnavailable from open()).
  const err = e instanceof Error ? e : new Error(String(e));
  return { status, message: `${err.name}: ${err.message}` };
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function reproduceLine(
  suite: string,
  targetArgs: string[],
  seed: number,
  id: string,
  full: boolean,
): string {
  const args = ['npx', 'wirecheck', 'test', suite, ...targetArgs, '--seed', String(seed), '--only', id];
  if (full) args.push('--full');
  return args.map(shellQuote).join(' ');
}
