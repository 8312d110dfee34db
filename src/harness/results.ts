import { z } from 'zod';
import { MAX_SHARDS } from './shard.js';

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

/**
 * A picture of what happened, attached to a failure so a report can draw it: the frames of
 * a stream on a time axis, or the JSON-RPC messages of each session in order. `mark` is the
 * index of the offending item, when one is to blame. Items keep their text as sent, so a
 * report shows the bytes, not a re-serialisation.
 */
export const FrameItem = z.object({
  /** Milliseconds since the stream's first byte. */
  atMs: z.number(),
  /** The SSE event name; absent for a comment or a frame without one. */
  event: z.string().optional(),
  /** The frame's data (or the comment's text). */
  data: z.string(),
  comment: z.boolean().optional(),
});
export type FrameItem = z.infer<typeof FrameItem>;

export const RpcItem = z.object({
  /** Milliseconds since the first message of the picture. */
  atMs: z.number(),
  /** Which session (an SSE session id, `stdio`, or a label the check chose). */
  session: z.string(),
  /** Seen from the harness: `sent` to the target or `received` from it. */
  direction: z.enum(['sent', 'received']),
  /** The message as text (JSON as it crossed the wire, or a line that was not JSON). */
  text: z.string(),
});
export type RpcItem = z.infer<typeof RpcItem>;

export const Evidence = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('frames'),
    title: z.string(),
    frames: z.array(FrameItem),
    mark: z.number().int().nonnegative().optional(),
  }),
  z.object({
    kind: z.literal('jsonrpc'),
    title: z.string(),
    messages: z.array(RpcItem),
    mark: z.number().int().nonnegative().optional(),
  }),
]);
export type Evidence = z.infer<typeof Evidence>;

/** Why a run stopped early (see SuiteResult.stopped). */
export const RunStop = z.object({
  kind: z.enum(['target-gone', 'interrupted', 'budget', 'harness-error']),
  /** One sentence, printed once: "the target stopped during runner.output.x: ...". */
  message: z.string(),
  /** For `interrupted`: the signal that stopped the run (SIGHUP: a closed terminal, some CI cancels). */
  signal: z.enum(['SIGINT', 'SIGTERM', 'SIGHUP']).optional(),
});
export type RunStop = z.infer<typeof RunStop>;

/** One check's outcome: a plain record, built by the harness, formatted by reporters. */
export const CheckResult = z.object({
  id: z.string(),
  suite: z.string(),
  clause: z.string(),
  description: z.string(),
  level: Level,
  /** `full`: the check runs only with --full. */
  tier: z.enum(['quick', 'full']).optional(),
  status: CheckStatus,
  /**
   * Why a skipped check did not judge the target: `not-applicable` (the check does not apply
   * to this target or transport), `not-exercised` (it ran, but the target gave it nothing to
   * judge), `not-run` (the run stopped before it: the target went away, an interrupt, the
   * suite's time budget). Absent on other statuses.
   */
  skipKind: z.enum(['not-applicable', 'not-exercised', 'not-run']).optional(),
  message: z.string(),
  durationMs: z.number().nonnegative(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  /** The command line that runs exactly this check again with the same seed. */
  reproduce: z.string().optional(),
  /** What happened, for a failure or a warning that has a picture (see Evidence). */
  evidence: Evidence.optional(),
  /**
   * For a failed property-based check run with a report directory: the saved shrunk
   * counterexample (a `counterexample` fixture) and the command that replays exactly that case.
   */
  counterexample: z.object({ file: z.string(), replay: z.string() }).optional(),
  /**
   * Set only for a check listed in a `--baseline` file: `expected-failure` when it failed as
   * listed (the run does not fail for it), `stale` when it passes now (the run fails until the
   * entry is removed), `not-reproduced` when a property-based check passes with this run's
   * seed (a warning: another seed may still hit the failure). `status` stays the real outcome.
   */
  baseline: z
    .object({ status: z.enum(['expected-failure', 'stale', 'not-reproduced']), reason: z.string() })
    .optional(),
  /** A fault of the target shared by several failures (see CheckFailure.sharedCause): reports group by it. */
  sharedCause: z.string().optional(),
  /** The check failed because the target went away (exited, stopped answering): the checks after it were not run. */
  targetGone: z.boolean().optional(),
  /** The check failed because the suite's time budget ran out while it ran: the checks after it were not run. */
  budgetUsedUp: z.boolean().optional(),
  /**
   * fast-check runs each property of the check was really given (the smallest, when it has
   * several): lower than the run's `runs` when the check caps them (a property that starts a
   * process per case). Absent for a check without a property.
   */
  runs: z.number().int().nonnegative().optional(),
  /** For a labelled property (a set of rules, one label each): every failing label with its own message. */
  labels: z.array(z.object({ label: z.string(), message: z.string() })).optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const Summary = z.object({
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  warned: z.number().int().nonnegative(),
  /** Every skip, whatever its kind; the two counts below are the part of it that judged nothing. */
  skipped: z.number().int().nonnegative(),
  /** Skips of kind `not-exercised`: the check ran, but the target gave it nothing to judge. */
  notExercised: z.number().int().nonnegative().optional(),
  /** Skips of kind `not-run`: the run stopped before the check (the target went away, an interrupt, the budget). */
  notRun: z.number().int().nonnegative().optional(),
});
export type Summary = z.infer<typeof Summary>;

/** The `results.json` shape of the target contract (README) (one suite run). */
export const SuiteResult = z.object({
  suite: z.string(),
  target: z.string(),
  seed: z.number().int(),
  summary: Summary,
  checks: z.array(CheckResult),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  wirecheck: z.string(),
  /**
   * Which run of the suite this is when one plan runs it more than once (`wirecheck all`: the
   * tool-server suite over stdio and Streamable HTTP beside SSE): reports name the run and its
   * folder by it, and merge-reports merges only runs of one variant. Absent for a suite run once.
   */
  variant: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a variant is lower-case letters and digits, words joined by -')
    .optional(),
  /** The part of the suite this run covered (`--shard index/count`, 1-based); absent for the whole suite. */
  shard: z
    .object({ index: z.number().int().min(1), count: z.number().int().min(1).max(MAX_SHARDS) })
    .refine((shard) => shard.index <= shard.count, { message: 'the shard index must be at most its count' })
    .optional(),
  /** fast-check runs per property the run asked for (`--runs`); a check's own `runs` may be lower. */
  runs: z.number().int().positive().optional(),
  /**
   * Which checks the run selected before its shard (see RunSelection): merge-reports refuses
   * shards of different selections. Absent in files of older versions: unknown.
   */
  selection: z.object({ only: z.array(z.string()).optional(), full: z.boolean() }).optional(),
  /** The suite's total time budget (see suiteBudgetMs). */
  budgetMs: z.number().nonnegative().optional(),
  /** Checks run at once (`--jobs`; 1 for a suite whose checks run one at a time). */
  jobs: z.number().int().positive().optional(),
  /**
   * The target processes the run started (`what`: client, runner, agent), and what one bare
   * start and exit of the same command took, measured once after the checks (absent when it
   * could not be measured).
   */
  targetStarts: z
    .object({
      what: z.string(),
      count: z.number().int().nonnegative(),
      bareStartMs: z.number().nonnegative().optional(),
      /**
       * How many of them the run let start at once, where that is not `jobs`: a suite whose
       * checks run one at a time but which starts processes ahead of them (Suite.startsAhead).
       */
      atOnce: z.number().int().positive().optional(),
      /** What makes the command start faster (BareStart.fasterStart), for the summary line. */
      fasterStart: z.string().optional(),
    })
    .optional(),
  /**
   * Why the run stopped before its last check, said once for every check marked not run:
   * the target went away, the run was interrupted, the suite's time budget was used up, or
   * wirecheck itself failed (a harness error).
   */
  stopped: RunStop.optional(),
  /**
   * What wirecheck could not clean up after the checks (a working directory the target left
   * undeletable, a close that failed): the verdicts stand, and the user is told what remains.
   */
  warnings: z.array(z.string()).optional(),
  /**
   * The run could not start at all (the target could not be started or reached): no check
   * ran and none is counted; the code is the harness error's (WC_TARGET_UNAVAILABLE).
   */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type SuiteResult = z.infer<typeof SuiteResult>;

/** The checks a run selected: `--only` (ids, or prefixes ending in '.') when given, and whether it ran the full tier (`--full`). */
export type RunSelection = NonNullable<SuiteResult['selection']>;

/** The selection of a run given `--only` and `--full` (an empty --only list selects as none does). */
export function selectionOf(only: readonly string[] | undefined, full: boolean): RunSelection {
  return { ...(only === undefined || only.length === 0 ? {} : { only: [...only] }), full };
}

/**
 * The counts of the target contract (README) (passed, failed, warned, skipped), plus `notExercised` and
 * `notRun` when there are any (the part of `skipped` that judged nothing); left out at 0, so
 * a clean run's summary keeps exactly the four counts.
 */
export function summarize(checks: readonly Pick<CheckResult, 'status' | 'skipKind'>[]): Summary {
  const summary = { passed: 0, failed: 0, warned: 0, skipped: 0 };
  let notExercised = 0;
  let notRun = 0;
  for (const c of checks) {
    if (c.status === 'pass') summary.passed++;
    else if (c.status === 'fail') summary.failed++;
    else if (c.status === 'warn') summary.warned++;
    else {
      summary.skipped++;
      if (c.skipKind === 'not-exercised') notExercised++;
      else if (c.skipKind === 'not-run') notRun++;
    }
  }
  return withSkipKinds(summary, notExercised, notRun);
}

/** A summary with the skip-kind counts that are not 0. */
export function withSkipKinds(summary: Summary, notExercised: number, notRun: number): Summary {
  return {
    ...summary,
    ...(notExercised > 0 ? { notExercised } : {}),
    ...(notRun > 0 ? { notRun } : {}),
  };
}

/** Exit status of `wirecheck test` for finished runs: 0 clean, 1 a failure (or a warning under --strict). */
export function exitCodeOf(results: readonly SuiteResult[], strict: boolean): 0 | 1 {
  for (const r of results) {
    if (r.summary.failed > 0 || (strict && r.summary.warned > 0)) return 1;
  }
  return 0;
}
