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
  /** Called once the start is measured (a temporary directory to remove). */
  readonly done?: () => void;
}

/** Longest a bare start may take before it is given up on (it is then not shown). */
const BARE_START_TIMEOUT_MS = 10_000;

/**
 * Start the command bare, once, and time it from spawn to exit: undefined when it could
 * not start, timed out or the run was stopped (nothing worth showing then).
 */
export async function measureBareStart(start: BareStart, signal?: AbortSignal): Promise<number | undefined> {
  try {
    const run = await runCommand(start.command, {
      env: start.env,
      stdin: '',
      timeoutMs: BARE_START_TIMEOUT_MS,
      graceMs: 200,
      ...(signal === undefined ? {} : { signal }),
    });
    if (run.spawnError !== undefined || run.timedOut || signal?.aborted) return undefined;
    return Math.round(run.durationMs);
  } finally {
    start.done?.();
  }
}
