import type { BareStart } from './bare-start.js';
import type { Evidence, Level } from './results.js';
import type { Slots } from './slots.js';

/** Where a check's rule is written (docs/levels.md). */
export const BASES = [
  'spec',
  'protocol-must',
  'contract',
  'spec-reference',
  'protocol-should',
  'real-api',
] as const;
export type Basis = (typeof BASES)[number];

/** The bases that allow a check to fail a target (level `must`); every other basis warns. */
export const MUST_BASES: readonly Basis[] = ['spec', 'protocol-must', 'contract'];

/** What a check may use besides its suite's context. */
export interface CheckEnv {
  /** Seed for every random choice of the check (fast-check, fault offsets...). */
  readonly seed: number;
  /** fast-check runs per property in this tier. */
  readonly runs: number;
  /** `--full`: slow checks and real-time defaults run too. */
  readonly full: boolean;
  /** Aborted when the check's time budget runs out. */
  readonly signal: AbortSignal;
  /** `--replay FILE`: checkProperty runs only this saved case instead of generating. */
  readonly replay?: PropertyReplay;
  /**
   * The run's job slots, when the check may borrow free ones to run the cases of its
   * properties concurrently (`--jobs` above 1, a suite whose checks run concurrently).
   */
  readonly slots?: Slots;
  /**
   * Wait for work another check runs for this one too (a shared session): the check's job
   * slot goes back to the pool meanwhile, so the wait lends a core to the next check instead
   * of holding it. A check that holds no slot to lend (one that waits on time or runs alone,
   * or any check of a suite run one check at a time) just waits.
   */
  idle<T>(work: Promise<T>): Promise<T>;
}

/** One saved case of a property-based check (a counterexample fixture), to run again. */
export interface PropertyReplay {
  /** fast-check's seed and path of the case. */
  readonly seed: number;
  readonly path: string;
  /** Which checkProperty call of the check (0-based) the case belongs to; the others are skipped. */
  readonly property: number;
  /** The saved value, when it was stored as JSON: run as is if seed and path no longer generate it. */
  readonly value?: { readonly json: unknown };
}

/** A check's verdict on the target; thrown by a check body or a helper. */
export class CheckFailure extends Error {
  override readonly name: string = 'CheckFailure';
  constructor(
    message: string,
    readonly expected?: string,
    readonly actual?: string,
    /** What happened, for the report's picture (frames on a time axis, JSON-RPC sessions). */
    readonly evidence?: Evidence,
    options: CheckFailureOptions = {},
  ) {
    super(message);
    if (options.sharedCause !== undefined) this.sharedCause = options.sharedCause;
  }
  /**
   * A fault of the target that explains this failure and may explain others (the client
   * exited before sending anything, the server never answered): reports print failures
   * with the same shared cause once, as one line, with the target's first stderr lines.
   */
  readonly sharedCause?: string;
}

export interface CheckFailureOptions {
  readonly sharedCause?: string;
}

/**
 * Thrown where a check finds wirecheck itself in a state it must never reach (a bug of
 * wirecheck or of a suite): no target is blamed. The check is not run, and the suite's run
 * stops there as on an uncaught error (a harness error: exit status 2, the reports written).
 */
export class HarnessBug extends Error {
  override readonly name = 'HarnessBug';
}

/** Whom a harness error blames, in the line of the check it stopped and in its suite's stop. */
export const WIRECHECK_BLAMED = 'a bug of wirecheck or of a suite';

/** Thrown by a check that cannot apply to this target (it becomes a skip). */
export class CheckSkipped extends Error {
  override readonly name: string = 'CheckSkipped';
}

/**
 * Thrown by a check that ran but was given nothing to judge (no request reached the mock,
 * no frame of the kind it checks arrived): it is reported as "not exercised", never as a pass.
 */
export class NotExercised extends CheckSkipped {
  override readonly name = 'NotExercised';
}

/**
 * Thrown when the target stopped being testable during the run (its process exited for
 * good, its URL stopped answering): the check that saw it fails with this message, and the
 * checks after it are reported as not run, with the reason printed once.
 */
export class TargetGone extends CheckFailure {
  override readonly name = 'TargetGone';
}

/**
 * A check as data: its identity, the spec clause it enforces, and a body that returns
 * when the target conforms and throws CheckFailure (or CheckSkipped) when it does not.
 * A `should` check that fails is reported as a warning.
 */
export interface Check<Ctx> {
  /** `<suite>.<area>.<rule>`, stable across releases: baselines and --only name it. */
  readonly id: string;
  /** Section and item of the specification, e.g. "Events rule 1". */
  readonly clause: string;
  /** One line: the rule in the spec's words. */
  readonly description: string;
  readonly level: Level;
  /**
   * Where the rule comes from, which decides the level (docs/levels.md): `spec`,
   * `protocol-must` and `contract` allow `must`; the others make a check `should`.
   */
  readonly basis: Basis;
  /**
   * The rule the check rests on, stated in the catalogue's own words so a reader needs no
   * document outside the repository: what the text says, and for whom (every server, a
   * reference server...). docs/checks.md shows it beside the clause.
   */
  readonly rule: string;
  /** `full` checks run only with --full. */
  readonly tier?: 'quick' | 'full';
  /** Per-check budget in ms (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * Time the check's case waits out against a conforming target whatever the machine does,
   * because the check prescribes it (a retry-after, a reply delay, a default timeout, a window
   * in which nothing may arrive). A suite's floor in the bench counts the longest of its
   * checks' (issue 14, `prescribedWaitMs` in src/harness/target-starts.ts), or their sum when
   * its checks run one at a time. Absent: none.
   */
  readonly prescribedWaitMs?: number;
  /**
   * The protocol revisions the rule holds in (the MCP suites' `--protocol`), oldest first;
   * absent: every revision. The suite skips the check as not applicable under the others.
   */
  readonly revisions?: readonly string[];
  /**
   * How the check shares the machine when its suite's checks run concurrently (`--jobs`
   * above 1). `alone`: it measures what others would disturb (memory, timing), so no other
   * check runs beside it except the `waits` ones. `waits`: it mostly waits on time (a
   * timeout, a keep-alive window), so it starts first and holds no job slot, and its wait
   * overlaps the other checks. `last`: it judges what every other check of the suite did
   * (the processes they left), so it starts once all of them, `waits` ones included, have
   * ended. Absent: an ordinary check, one job slot.
   */
  readonly schedule?: CheckSchedule;
  run(ctx: Ctx, env: CheckEnv): Promise<void>;
}

export type CheckSchedule = 'alone' | 'waits' | 'last';

/** A suite: its checks and how to reach a target. */
export interface Suite<Target, Ctx> {
  readonly name: string;
  /** One line for `wirecheck list`. */
  readonly description: string;
  readonly checks: readonly Check<Ctx>[];
  /**
   * The checks may run concurrently (`--jobs`): the context gives every case its own mock
   * (or mock session), work directory and ports, and shares nothing mutable between checks.
   * Absent: one check at a time, whatever `--jobs` says.
   */
  readonly concurrent?: boolean;
  /**
   * Its checks run one at a time, but it starts target processes ahead of them, up to
   * `--jobs` at once (the tool server's spare stdio processes): the run's start count says so
   * (`atOnce`), so a floor divides the starts by what really ran at once.
   */
  readonly startsAhead?: boolean;
  /**
   * How many of its `waits` checks may wait at once, where that may be more than `--jobs`: a
   * suite whose waiting checks judge only that a wait was long enough (a retry no sooner than
   * its retry-after, a client that waited for a slow reply) says so, since other load can only
   * lengthen such a wait, never fail it. Absent: `--jobs` (the runner's timeouts judge a
   * latest time too, so they keep to it).
   */
  readonly waitsAtOnce?: number;
  /** Describe the target for reports ("http://127.0.0.1:8080" or the command line). */
  describeTarget(target: Target): string;
  /** The target options as CLI arguments, for the reproduce line. */
  targetArgs(target: Target): string[];
  /**
   * What the target was given that no report may show (an HTTP header's credential), as a
   * function that hides it in a text: every text of the run's results and a target-unavailable
   * message go through it, since a target may echo a credential back in what a check quotes.
   */
  scrubber?(target: Target): ((text: string) => string) | undefined;
  /**
   * How many times its usual budget a check of this target may take, at least 1: a target
   * given longer to start (`--start-timeout`) takes longer per case, and a check's budget is
   * sized in cases. Every check's budget, and so the suite's, grows by this factor.
   */
  budgetScale?(target: Target): number;
  /**
   * What opening the suite may take for this target, where more than the usual allowance
   * (OPEN_ALLOWANCE_MS, scaled): a server the suite starts and waits for (`--start-timeout`).
   */
  openMs?(target: Target): number | undefined;
  /**
   * The command the suite starts for its cases, as started with nothing to do: timed once per
   * run, so the summary can say what one start of the target costs (`312 client starts, 41 ms
   * each`). Absent: the suite starts no target process per case.
   */
  bareStart?(target: Target): BareStart | undefined;
  /**
   * Start whatever the checks share (mock servers, a probe of the target). Throws
   * TargetUnavailable when the target cannot be reached at all (exit 2). `env.signal`, when
   * given, aborts when the run is stopped (an interrupt) while the suite opens: a probe of
   * the target should end its processes then.
   */
  /**
   * Open the suite on the target. The context's close may resolve to a warning: what it could
   * not clean up (the run's verdicts stand; SuiteResult.warnings shows it).
   */
  open(target: Target, env: OpenEnv): Promise<Ctx & { close(): Promise<string | undefined | void> }>;
}

/** What a suite's `open` gets: the run's settings and, in a run, its stop signal. */
export type OpenEnv = Omit<CheckEnv, 'signal' | 'idle'> & {
  readonly signal?: AbortSignal;
  /**
   * `--jobs` as asked (absent: 1), also for a suite that runs one check at a time: it may
   * still prepare that many things ahead (the tool server's spare stdio processes).
   */
  readonly jobs?: number;
  /**
   * The ids of the checks the run selected (`--only`, tier, shard), when known: a check left
   * out never runs, so nothing should wait for it to end.
   */
  readonly checks?: readonly string[];
};

/** The target could not be started or reached: bad usage, exit status 2. */
export class TargetUnavailable extends Error {
  override readonly name = 'TargetUnavailable';
}

/** Assert helper: fail with expected/actual unless `ok`. */
export function expectThat(ok: boolean, message: string, expected?: unknown, actual?: unknown): asserts ok {
  if (!ok) throw new CheckFailure(message, show(expected), show(actual));
}

export function show(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  try {
    const s = JSON.stringify(value);
    return s.length > 2000 ? `${s.slice(0, 2000)}... (${s.length} chars)` : s;
  } catch {
    return String(value);
  }
}
