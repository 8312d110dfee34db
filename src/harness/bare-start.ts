import { runCommand } from './run-command.js';

/**
 * The command a suite starts once per case, as it would be started with nothing to do:
 * stdin closed at once, nothing reachable to talk to. Timing it shows what one start costs
 * (an interpreter, a bundle to load), apart from the protocol work.
 */
export interface BareStart {
  /** What one start is, for the summary: `client`, `runner`, `agent`. */
  readonly what: string;
  readonly command: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * What makes this command start faster, for the summary line when starting fills most of
   * the suite's time (absent: the general advice of docs/performance.md).
   */
  readonly fasterStart?: string;
  /** Called once the start is measured (a temporary directory to remove). */
  readonly done?: () => void;
}

/** Longest a bare start may take before it is given up on (it is then not shown). */
const BARE_START_TIMEOUT_MS = 10_000;

/**
 * Bare starts timed per measurement: one start on a busy machine can be off by a factor of 2,
 * and the summary line and the bench's floor should not move with it.
 */
export const BARE_STARTS = 3;

/**
 * Start the command bare BARE_STARTS times, one after another, and return the shortest time
 * from spawn to exit: undefined when it could not start, timed out or the run was stopped
 * (nothing worth showing then). The shortest, because other work only ever lengthens a
 * start: in `wirecheck all` a suite's waiting checks may start their processes beside it.
 */
export async function measureBareStart(start: BareStart, signal?: AbortSignal): Promise<number | undefined> {
  try {
    const times: number[] = [];
    for (let i = 0; i < BARE_STARTS; i++) {
      const ms = await timeBareStart(start, signal);
      if (ms === undefined) return undefined;
      times.push(ms);
    }
    return Math.round(Math.min(...times));
  } finally {
    endBareStart(start);
  }
}

/**
 * Remove what the bare starts left. A target may leave something undeletable there; the
 * measurement and the run's verdicts stand all the same, so that failure is not the run's.
 */
export function endBareStart(start: BareStart): void {
  try {
    start.done?.();
  } catch {
    // Left in the temporary directory: nothing the run can do about it.
  }
}

/** One bare start, spawn to exit (ms): undefined when it could not start, timed out or was stopped. */
export async function timeBareStart(start: BareStart, signal?: AbortSignal): Promise<number | undefined> {
  const run = await runCommand(start.command, {
    env: start.env,
    stdin: '',
    timeoutMs: BARE_START_TIMEOUT_MS,
    graceMs: 200,
    ...(signal === undefined ? {} : { signal }),
  });
  if (run.spawnError !== undefined || run.timedOut || signal?.aborted) return undefined;
  return run.durationMs;
}
