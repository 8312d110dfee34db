import type { Readable } from 'node:stream';
import { HeldBytes } from '../protocol/held-line.js';
import { HarnessBug } from './check.js';
import {
  type ContainedTarget,
  ContainmentUnavailable,
  type Survivor,
  startContained,
} from './containment/index.js';
import { createHeadTailCapture } from './head-tail.js';
import { createLineWatch } from './line-watch.js';
import { harnessBugOf } from './programmer-error.js';
import { waitAtMost } from './wait-at-most.js';

export interface CommandRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The first and the last 8 KiB of stderr, with a note of what was left out between them. */
  stderr: string;
  /** The first line of the whole stderr that CommandOptions.stderrLine picked (the middle of `stderr` may be left out). */
  stderrPicked?: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when the command could not be started at all. */
  spawnError?: Error;
  /**
   * Processes the command left running outside its process group when it ended (setsid
   * escapees, daemons): wirecheck killed them. A suite records them in a LeftoverLedger (processes.none-left).
   */
  survivors?: Survivor[];
}

export interface CommandOptions {
  /** Full environment of the command (the caller merges process.env where it wants it). */
  env: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs: number;
  /**
   * Settles when the command first reaches its peer (a case's mock): if that is before the
   * timeout ran out, the timeout starts over from then, once. A command's own start-up (an
   * interpreter, a package manager, a JVM) is then not held against a case's budget, which
   * is meant for the protocol work; at most it doubles the wait for a command that hangs.
   */
  restartTimeoutOn?: Promise<unknown>;
  /**
   * With `restartTimeoutOn`: the budget until that first contact, where it is longer than
   * `timeoutMs` (a client the user said is slow to start, `--start-timeout`); never shorter.
   */
  startTimeoutMs?: number;
  /**
   * For a command that works in steps (an agent's requests to its mock): `onStep` is handed
   * the function to call at each step, which starts the timeout over. `timeoutMs` then bounds
   * the time between two steps, and `atMostMs`, counted from the first step, the time in all.
   */
  stepped?: { onStep(step: () => void): void; readonly atMostMs: number };
  /** Between the terminate and the kill signal on timeout. */
  graceMs?: number;
  /** Bytes kept of stdout; the rest is drained and dropped. */
  maxOutputBytes?: number;
  cwd?: string;
  /** Aborting kills the command and everything it started at once. */
  signal?: AbortSignal;
  /** Every line of stderr is shown to it, kept or not: the first it accepts is `stderrPicked`. */
  stderrLine?: (line: string) => boolean;
}

/** After the command exits, how long its output may still arrive (a holder of the pipes is dead by then). */
const DRAIN_MS = 500;

/** Codes spawn fails with for want of the harness's own descriptors, processes or memory. */
const HARNESS_SHORTAGES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']);

/**
 * Whether an error from starting a target is spawn's refusal of the command as given: a program
 * or working directory missing or not executable, arguments too long, a NUL byte. Only then is
 * the target the one that "cannot be started"; a failure of wirecheck's (its containment, its
 * own resources, a bug) blamed on it would stop a run with a false verdict.
 */
export function isCommandStartError(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  const { code, syscall } = e as NodeJS.ErrnoException;
  if (typeof code !== 'string') return false;
  if (code === 'ERR_INVALID_ARG_VALUE') return e.message.includes('without null bytes');
  return typeof syscall === 'string' && syscall.startsWith('spawn') && !HARNESS_SHORTAGES.has(code);
}

/**
 * An error thrown or emitted while starting a target, as the run's `spawnError` when the command
 * is what cannot start (isCommandStartError); any other error is thrown on. No containment
 * method working stays a start failure: every start meets it, so the first (a suite's
 * preflight) reports it as the target being unavailable, with the message naming the cause.
 */
export function spawnErrorOf(e: unknown): Error {
  if (isCommandStartError(e) || e instanceof ContainmentUnavailable) return e;
  throw notTheCommands(e);
}

/**
 * What starting a target failed on when the command is not what cannot start: wirecheck's own
 * shortage (descriptors, processes, memory), its containment or a bug. No verdict on the
 * target: the suite stops as a harness error (exit 2), as for any bug of wirecheck's.
 */
export function notTheCommands(e: unknown): HarnessBug {
  const bug = harnessBugOf(e);
  if (bug !== undefined) return bug;
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new HarnessBug(
    `wirecheck could not start a target command (its own failure, not the command's): ${text}`,
    {
      cause: e,
    },
  );
}

/**
 * Run a target command as the target contract in the README says: `sh -c CMD`, in its own process group, inside
 * the containment this machine offers (src/harness/containment), stdin written then
 * closed, stdout/stderr captured. On timeout the whole group gets SIGTERM, then SIGKILL
 * after the grace; an abort kills at once. When the command ends, whatever escaped its
 * group (setsid, daemons) is killed and returned as `survivors`, and so is what it left in
 * its own group when it exited by itself (after the group grace; a group wirecheck signalled
 * is killed unreported): no check leaks processes.
 */
export async function runCommand(command: string, options: CommandOptions): Promise<CommandRun> {
  const started = performance.now();
  const max = options.maxOutputBytes ?? 16 * 1024 * 1024;
  const failedToStart = (error: Error): CommandRun => ({
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    durationMs: performance.now() - started,
    spawnError: error,
    survivors: [],
  });
  let target: ContainedTarget;
  try {
    target = await startContained(command, {
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd !== undefined && { cwd: options.cwd }),
    });
  } catch (error) {
    return failedToStart(spawnErrorOf(error));
  }
  const { child } = target;
  return new Promise((resolve, reject) => {
    const out = headCollector(max);
    const err = createHeadTailCapture();
    const picked = options.stderrLine === undefined ? undefined : createLineWatch(options.stderrLine);
    child.stdout?.on('data', out.push);
    child.stderr?.on('data', (chunk: Buffer) => {
      err.push(chunk);
      picked?.push(chunk);
    });
    let timedOut = false;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const onTimeout = () => {
      timedOut = true;
      target.signalGroup('SIGTERM');
      graceTimer = setTimeout(() => target.signalGroup('SIGKILL'), options.graceMs ?? 2000);
    };
    const untilContactMs =
      options.restartTimeoutOn === undefined
        ? options.timeoutMs
        : Math.max(options.timeoutMs, options.startTimeoutMs ?? 0);
    let timer = setTimeout(onTimeout, untilContactMs);
    let firstStepAt: number | undefined;
    const startOver = () => {
      if (settled || timedOut) return;
      clearTimeout(timer);
      const leftInAll =
        options.stepped === undefined || firstStepAt === undefined
          ? Number.POSITIVE_INFINITY
          : options.stepped.atMostMs - (performance.now() - firstStepAt);
      timer = setTimeout(onTimeout, Math.max(0, Math.min(options.timeoutMs, leftInAll)));
    };
    void options.restartTimeoutOn?.then(startOver, () => {});
    options.stepped?.onStep(() => {
      firstStepAt ??= performance.now();
      startOver();
    });
    const onAbort = () => target.killNow();
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const closed = new Promise<void>((r) => child.once('close', () => r()));
    const stopTimers = () => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      // Before the process started (program not found, cwd missing); after, a failed kill changes nothing.
      if (settled || child.pid !== undefined) return;
      settled = true;
      stopTimers();
      void target.close();
      if (isCommandStartError(error)) resolve(failedToStart(error));
      else reject(notTheCommands(error));
    });
    child.once('exit', async (exitCode, signal) => {
      if (settled) return;
      settled = true;
      stopTimers();
      // Whatever the command left in its group goes; what escaped the group is a survivor.
      const survivors = await target.close();
      await waitAtMost(closed, DRAIN_MS);
      for (const stream of [child.stdout, child.stderr] as (Readable | null)[]) stream?.destroy();
      picked?.end();
      resolve({
        exitCode,
        signal,
        stdout: out.text(),
        stderr: err.text(),
        ...(picked?.found !== undefined && { stderrPicked: picked.found }),
        timedOut,
        durationMs: performance.now() - started,
        survivors,
      });
    });
    child.stdin?.on('error', () => {
      // the command may exit without reading its stdin
    });
    child.stdin?.end(options.stdin ?? '');
  });
}

/** Keeps the first `max` bytes of a stream and drops the rest. */
function headCollector(max: number) {
  const held = new HeldBytes();
  return {
    push: (chunk: Buffer) => {
      if (held.length >= max) return;
      held.add(held.length + chunk.length > max ? chunk.subarray(0, max - held.length) : chunk, false);
    },
    text: () => held.text(),
  };
}
