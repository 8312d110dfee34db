import { type Check, type CheckEnv, CheckFailure, NotExercised } from '../check.js';
import { listPids, type Survivor } from './procfs.js';
import { describeSurvivors } from './spawn.js';

/** One target process that ended and what it left running (killed by the harness). */
export interface EndedProcess {
  /** Which case or session it served, e.g. "case runner.output.stdout" or "session main-2". */
  readonly label: string;
  readonly survivors: readonly Survivor[];
}

/** What a finished run of a target process says about what it left (CommandRun, a runner session). */
export interface ProcessRun {
  readonly spawnError?: Error | undefined;
  readonly survivors?: readonly Survivor[] | undefined;
}

/**
 * What every target process of one suite run left behind when it ended: a suite records
 * each process it started (runCommand's `survivors`, a session's, a server's), and its
 * `processes.none-left` check (noneLeftCheck) judges them all at the end of the run.
 */
export class LeftoverLedger {
  private readonly ended: EndedProcess[] = [];
  private readonly running = new Set<Promise<unknown>>();

  /** Records a process that ended; `survivors` undefined (the command never started) counts as not run. */
  record(label: string, survivors: readonly Survivor[] | undefined): void {
    if (survivors !== undefined) this.ended.push({ label, survivors });
  }

  /**
   * Records the process a promise runs (runCommand's CommandRun, a runner session) once it
   * settles, and counts it as running until then (the check waits for it). A run that could
   * not start (`spawnError`) ended nothing. Returns the promise itself.
   */
  track<T extends ProcessRun>(label: string, run: Promise<T>): Promise<T> {
    const watched = run.then(
      (result) => this.record(label, result.spawnError === undefined ? (result.survivors ?? []) : undefined),
      () => {},
    );
    this.running.add(watched);
    void watched.finally(() => this.running.delete(watched));
    return run;
  }

  /** Resolves once no tracked process runs, or when `signal` aborts. */
  async settled(signal?: AbortSignal): Promise<void> {
    while (this.running.size > 0 && signal?.aborted !== true) {
      const aborted = new Promise<void>((resolve) =>
        signal?.addEventListener('abort', () => resolve(), { once: true }),
      );
      await Promise.race([Promise.all([...this.running]), aborted]);
    }
  }

  /** Every process recorded so far, in the order they ended. */
  processes(): readonly EndedProcess[] {
    return [...this.ended];
  }
}

export interface NoneLeftCheckSpec<Ctx> {
  /** The suite's name: the check is `<suite>.processes.none-left`. */
  readonly suite: string;
  /** What the target runs, e.g. "the runner command `node runner.js`". */
  readonly what: (ctx: Ctx) => string;
  readonly ledger: (ctx: Ctx) => LeftoverLedger;
  readonly clause: string;
  readonly rule: string;
  /**
   * Runs before judging: may start and end a process of its own so that the check has one
   * to judge (a fresh tool-server session), or throw CheckSkipped / NotExercised.
   */
  readonly exercise?: (ctx: Ctx, env: CheckEnv) => Promise<void>;
  readonly timeoutMs?: number;
}

/**
 * `<suite>.processes.none-left`, a should-level check a suite puts last among its checks:
 * every target process that ended during the run (every case, not only this check's) left
 * nothing running, setsid escapees included (the containment finds them and kills them;
 * this check reports them). Not exercised when no target process ended, or when this
 * machine has no /proc to find escapees in.
 */
export function noneLeftCheck<Ctx>(spec: NoneLeftCheckSpec<Ctx>): Check<Ctx> {
  return {
    id: `${spec.suite}.processes.none-left`,
    clause: spec.clause,
    description:
      'No process the target started is still running once the target has ended (setsid escapees included), in any case of the run.',
    level: 'should',
    basis: 'protocol-should',
    rule: spec.rule,
    timeoutMs: spec.timeoutMs ?? 30_000,
    // Under --jobs it must come after every other check, whose runs it judges, `waits` ones included.
    schedule: 'last',
    async run(ctx, env) {
      await spec.exercise?.(ctx, env);
      const ledger = spec.ledger(ctx);
      await ledger.settled(env.signal);
      judgeLeftovers(spec.what(ctx), ledger.processes(), listPids().length > 0);
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Survivors by their command lines alone. */
function commandsOf(survivors: readonly Survivor[]): string {
  return survivors.map((s) => (s.command === '' ? '(no command line)' : s.command)).join('; ');
}

/** Processes named per run in a message. */
const SHOWN_PER_RUN = 5;

/** The verdict of noneLeftCheck on what was recorded (pure: tested directly). */
export function judgeLeftovers(what: string, ended: readonly EndedProcess[], canSeeProcesses: boolean): void {
  if (!canSeeProcesses) {
    throw new NotExercised('this machine has no /proc, so processes a target left running cannot be found');
  }
  if (ended.length === 0) {
    throw new NotExercised(`no process of ${what} ended during the run, so none could leave anything behind`);
  }
  // By label, not in the order the runs ended, which concurrent checks change from run to run.
  const left = ended.filter((p) => p.survivors.length > 0).sort((a, b) => compare(a.label, b.label));
  if (left.length === 0) return;
  const count = left.reduce((n, p) => n + p.survivors.length, 0);
  // Bounded: a target that left a fork bomb behind is named by its first processes. Pids only
  // in `actual`: they differ in every run, and the message is to read the same with one seed.
  const listed = (describe: (survivors: readonly Survivor[]) => string) => {
    const lines = left.map(
      (p) =>
        `${p.label}: ${describe(p.survivors.slice(0, SHOWN_PER_RUN))}${p.survivors.length > SHOWN_PER_RUN ? `; and ${p.survivors.length - SHOWN_PER_RUN} more` : ''}`,
    );
    const more = lines.length > 5 ? `\n(and ${lines.length - 5} more processes of the target)` : '';
    return `${lines.slice(0, 5).join('\n')}${more}`;
  };
  throw new CheckFailure(
    `${what} left ${count === 1 ? '1 process' : `${count} processes`} running after it ended, in ${left.length} of ${ended.length} runs (wirecheck killed them):\n${listed(commandsOf)}`,
    'no process of the target still running once it has ended',
    listed(describeSurvivors),
  );
}
