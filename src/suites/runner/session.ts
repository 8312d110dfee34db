import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type ContainedTarget, type Survivor, startContained } from '../../harness/containment/index.js';
import { createHeadTailCapture } from '../../harness/head-tail.js';
import { startLoopLagProbe } from '../../harness/loop-lag.js';
import { isCommandStartError, notTheCommands, spawnErrorOf } from '../../harness/run-command.js';
import { HeldBytes } from '../../protocol/held-line.js';
import type { InputLine } from './lines.js';
import {
  killAll,
  type Marker,
  type ProcInfo,
  readStat,
  type Sighting,
  type Stdio,
  scanMarkers,
  sightingOf,
  stdioOf,
} from './processes.js';

/** One runner process fed `lines`: everything a check may judge. */
export interface SessionSpec {
  readonly lines: readonly InputLine[];
  /** WIRECHECK_TIMEOUT_S; undefined leaves it unset (the runner's own 20 s default applies). */
  readonly timeoutS: number | undefined;
  /** Files put into the working directory first (the directory is then created by the harness). */
  readonly files?: Readonly<Record<string, Uint8Array | string>>;
  /** Budget of the whole session; the runner's group is killed when it runs out. */
  readonly budgetMs: number;
  /** Processes the harness looks for in /proc while the runner runs and after it exits. */
  readonly watch?: readonly Marker[];
  readonly signal?: AbortSignal;
}

/** One line the runner printed on stdout, with when it arrived (ms after the spawn). */
export interface OutputLine {
  readonly text: string;
  readonly atMs: number;
  /**
   * Which read of stdout brought the line's end (1 for the first): lines of one read were in the
   * pipe together, lines of different reads were written apart, however late the harness read.
   */
  readonly read: number;
}

export interface SessionRun {
  readonly spec: SessionSpec;
  readonly workdir: string;
  readonly outputs: readonly OutputLine[];
  /**
   * Lines the runner printed after the kept ones (past keptLinesFor or MAX_STDOUT_BYTES):
   * counted, not kept. A line is kept whole or not at all.
   */
  readonly droppedLines: number;
  /** The runner's process group: the harness started it as the leader of its own group. */
  readonly runnerPgid: number | undefined;
  /**
   * Every group the runner's top process was seen in while it ran: the harness's group,
   * and another one if the runner moved itself (setsid) after starting.
   */
  readonly runnerGroups: ReadonlySet<number>;
  /** The runner exited by itself after its stdin closed (false: killed by the harness). */
  readonly exitedOnEof: boolean;
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  /** The session budget ran out before the runner answered every line and exited. */
  readonly budgetExceeded: boolean;
  /**
   * A last line the runner had begun and not ended when wirecheck killed it: not in `outputs`,
   * since the kill, not the runner, ended it (a slow writer's answer is no malformed answer).
   */
  readonly cutOff?: CutOffLine;
  /** The first and the last 8 KiB of the runner's stderr, with a note of what was left out. */
  readonly stderr: string;
  readonly spawnError?: Error;
  /** First sighting of each watched marker while the runner ran (by marker argument). */
  readonly seen: ReadonlyMap<string, readonly Sighting[]>;
  /**
   * The standard input and output of the process the harness started, read while markers were
   * watched: what the harness writes lines to and reads answers from, as /proc names them.
   */
  readonly runnerStdio: Stdio | undefined;
  /** When each watched marker was first seen alive (ms after the spawn). */
  readonly firstSeenMs: ReadonlyMap<string, number>;
  /** When each watched marker was last seen alive while the runner ran (ms after the spawn). */
  readonly lastSeenMs: ReadonlyMap<string, number>;
  /** Watched processes still alive (not zombies) once the runner exited and a settle time passed. */
  readonly leftovers: ReadonlyMap<string, readonly ProcInfo[]>;
  /**
   * Every process of the runner's tree still alive outside the runner's process group once
   * the case ended (watched or not), killed by the harness: see LeftoverLedger (processes.none-left).
   */
  readonly survivors: readonly Survivor[];
  readonly durationMs: number;
  /**
   * The harness's own lateness while the session ran (ms): the worst delay of its event loop
   * (a timer-drift probe). An arrival time in `outputs` may be that much late; timing
   * verdicts excuse it (see timing.ts).
   */
  readonly harnessLagMs: number;
}

/** An unterminated last line of stdout that wirecheck's kill of the runner cut off. */
export interface CutOffLine {
  readonly chars: number;
  /** Why wirecheck killed the runner. */
  readonly why: string;
}

export interface SessionEnv {
  /** The environment of the runner (wirecheck's own plus canaries), without the WIRECHECK_ variables. */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly workdir: string;
  /** Called as each line of the runner's stdout arrives (the memory sampler's baseline). */
  readonly onOutput?: (line: OutputLine) => void;
  /** Called once the runner's process runs, with its pid (the leader of its process group). */
  readonly onStart?: (pid: number) => void;
}

/**
 * After the last answer, how long a runner gets to exit on its own: the contract sets no
 * deadline, and a runner may tear down a container or a VM first (the spec recommends one).
 */
export const EXIT_WAIT_MS = 10_000;
/** After the exit, how long stdout may still deliver buffered lines. */
const DRAIN_MS = 1000;
/** After the exit, how long watched processes get to disappear (a kill is not instant). */
const SETTLE_MS = 1000;
const POLL_MS = 50;
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
/**
 * Lines kept beyond one per input line: room for a runner's extra lines (a banner, a stray
 * print) to be kept and judged. A bound on bytes alone is not enough: 64 MiB of nothing but
 * line breaks (`yes ''`) are 67 million lines, an object each, gigabytes of the harness's heap.
 */
export const EXTRA_LINES_KEPT = 1000;

/** How many of the runner's stdout lines a session keeps when fed `inputLines` lines. */
export function keptLinesFor(inputLines: number): number {
  return inputLines + EXTRA_LINES_KEPT;
}

/**
 * Run the runner command once as the target contract in the README says (`sh -c`, its own process group,
 * WIRECHECK_WORKDIR and WIRECHECK_TIMEOUT_S set), inside the harness's containment, write
 * every line to its stdin and close it, and collect the lines it prints with their
 * arrival times. While it runs, /proc is polled for the watched processes; after it exits
 * they get a short settle time and whatever still lives is recorded as a leftover, and
 * only then is everything of the runner's tree killed (its group, then the containment,
 * which catches setsid escapees): nothing a case starts outlives the case.
 */
export async function runSession(target: string, spec: SessionSpec, env: SessionEnv): Promise<SessionRun> {
  if (spec.files !== undefined) {
    mkdirSync(env.workdir, { recursive: true, mode: 0o755 });
    for (const [name, content] of Object.entries(spec.files)) {
      writeFileSync(join(env.workdir, name), content, { mode: 0o644 });
    }
  }
  const lag = startLoopLagProbe();
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const childEnv: Record<string, string> = { ...env.baseEnv, WIRECHECK_WORKDIR: env.workdir };
  if (spec.timeoutS !== undefined) childEnv.WIRECHECK_TIMEOUT_S = String(spec.timeoutS);
  const watch = spec.watch ?? [];
  const seen = new Map<string, Sighting[]>();
  let runnerStdio: Stdio | undefined;
  const firstSeenMs = new Map<string, number>();
  const lastSeenMs = new Map<string, number>();
  const base = {
    spec,
    workdir: env.workdir,
    seen,
    firstSeenMs,
    lastSeenMs,
    runnerPgid: undefined,
    runnerGroups: new Set<number>(),
    runnerStdio: undefined,
    exitedOnEof: false,
    exitCode: null,
    exitSignal: null,
    budgetExceeded: false,
    stderr: '',
    survivors: [],
    droppedLines: 0,
  };

  let contained: ContainedTarget;
  try {
    contained = await startContained(target, { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    const harnessLagMs = lag.stop();
    return {
      ...base,
      outputs: [],
      leftovers: new Map(),
      durationMs: elapsed(),
      harnessLagMs,
      spawnError: spawnErrorOf(e),
    };
  }
  const { child } = contained;
  const runnerPgid = child.pid;
  if (runnerPgid !== undefined) env.onStart?.(runnerPgid);
  const runnerGroups = new Set<number>(runnerPgid === undefined ? [] : [runnerPgid]);
  const outputs: OutputLine[] = [];
  let reads = 0;
  const lines = stdoutLines(keptLinesFor(spec.lines.length), MAX_STDOUT_BYTES, (text) => {
    const line = { text, atMs: elapsed(), read: reads };
    outputs.push(line);
    env.onOutput?.(line);
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    reads += 1;
    lines.push(chunk);
  });
  const stderr = createHeadTailCapture();
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  // Both: the exit may be known before the last of stderr is read (what sh says of a command it cannot find).
  const streamsClosed = Promise.all([closed(child.stdout), closed(child.stderr)]);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }));
      child.on('error', (error) => {
        // Before the process started it could not start; after, the error is of the harness's
        // link to it (a lost spawner): the runner still runs, and its exit follows.
        if (child.pid === undefined) resolve({ code: null, signal: null, error });
      });
    },
  );
  let exitedYet = false;
  void exited.then(() => {
    exitedYet = true;
  });

  const killGroup = (sig: NodeJS.Signals) => contained.signalGroup(sig);
  const poller =
    watch.length > 0
      ? setInterval(() => {
          const group = runnerPgid === undefined ? undefined : readStat(runnerPgid)?.pgid;
          if (group !== undefined) runnerGroups.add(group);
          if (runnerStdio === undefined && runnerPgid !== undefined) {
            const stdio = stdioOf(runnerPgid);
            if (stdio.stdin !== undefined && stdio.stdout !== undefined) runnerStdio = stdio;
          }
          const now = elapsed();
          for (const [arg, procs] of scanMarkers(watch)) {
            if (!seen.has(arg)) {
              seen.set(arg, procs.map(sightingOf));
              firstSeenMs.set(arg, now);
            }
            lastSeenMs.set(arg, now);
          }
        }, POLL_MS)
      : undefined;
  let budgetExceeded = false;
  const budget = setTimeout(() => {
    budgetExceeded = true;
    killGroup('SIGKILL');
  }, spec.budgetMs);
  const onAbort = () => contained.killNow();
  spec.signal?.addEventListener('abort', onAbort, { once: true });

  child.stdin?.on('error', () => {
    // the runner may exit before reading all of its input
  });
  child.stdin?.end(spec.lines.map((l) => `${l.text}\n`).join(''));

  // Every line answered (or the runner gone), then a bounded wait for it to exit.
  const answered = waitUntil(() => outputs.length >= spec.lines.length || exitedYet, spec.signal);
  await Promise.race([answered, exited]);
  let exitedOnEof = true;
  if ((await raceDelay(exited, EXIT_WAIT_MS)) === LATE) {
    exitedOnEof = false;
    killGroup('SIGKILL');
  }
  const exit = await exited;
  const harnessLagMs = lag.stop();
  clearTimeout(budget);
  spec.signal?.removeEventListener('abort', onAbort);
  if (poller) clearInterval(poller);
  await raceDelay(streamsClosed, DRAIN_MS);
  const killedWhy = budgetExceeded
    ? `killed after the session budget of ${spec.budgetMs} ms`
    : !exitedOnEof
      ? `killed ${EXIT_WAIT_MS / 1000} s after its last answer, still running with stdin closed`
      : spec.signal?.aborted
        ? 'killed when the run was stopped'
        : undefined;
  let cutOff: CutOffLine | undefined;
  // A runner that exits on its own with an unended line printed that line; one killed did not finish it.
  lines.end(
    killedWhy === undefined ? undefined : (text) => (cutOff = { chars: text.length, why: killedWhy }),
  );
  child.stdout?.destroy();
  child.stderr?.destroy();

  const leftovers = await settle(watch);
  const survivors = await contained.close();
  killAll([...leftovers.values()].flat());

  const run: SessionRun = {
    ...base,
    outputs,
    droppedLines: lines.droppedLines,
    runnerPgid,
    runnerGroups,
    runnerStdio,
    exitedOnEof: exitedOnEof && !budgetExceeded,
    exitCode: exit.code,
    exitSignal: exit.signal,
    budgetExceeded,
    ...(cutOff === undefined ? {} : { cutOff }),
    stderr: stderr.text(),
    leftovers,
    survivors,
    durationMs: elapsed(),
    harnessLagMs,
  };
  if (exit.error === undefined) return run;
  // Only once everything the session started is gone: an error that is not the runner's is thrown on.
  if (!isCommandStartError(exit.error)) throw notTheCommands(exit.error);
  return { ...run, spawnError: exit.error };
}

/** Poll until no watched process is alive or the settle time is over; what remains. */
async function settle(watch: readonly Marker[]): Promise<Map<string, ProcInfo[]>> {
  if (watch.length === 0) return new Map();
  const until = performance.now() + SETTLE_MS;
  for (;;) {
    const alive = scanMarkers(watch);
    if (alive.size === 0 || performance.now() >= until) return alive;
    await sleep(POLL_MS);
  }
}

function closed(stream: Readable | null): Promise<void> {
  return new Promise((resolve) => {
    if (stream === null) resolve();
    else stream.once('close', () => resolve());
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const LATE = Symbol('late');

/** `promise`, or LATE once `ms` pass first; the timer never outlives the race. */
async function raceDelay<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function waitUntil(done: () => boolean, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => {
      if (done() || signal?.aborted) resolve();
      else setTimeout(tick, 10);
    };
    tick();
  });
}

/** The lines of a runner's stdout: those kept (passed to `onLine`) and a count of the rest. */
export interface StdoutLines {
  push(chunk: Buffer): void;
  /**
   * Stdout closed: a last line without a line break is a line too, or, given `cut`, goes to
   * `cut` instead (the runner was killed before it could end the line).
   */
  end(cut?: (text: string) => void): void;
  readonly droppedLines: number;
}

/**
 * Keeps the first `maxLines` lines of the first `maxBytes` bytes of stdout and counts the
 * lines after them (by their line breaks, holding nothing of them), so that a flood of lines
 * costs the harness bounded memory and still shows in the session.
 */
export function stdoutLines(maxLines: number, maxBytes: number, onLine: (text: string) => void): StdoutLines {
  let kept = 0;
  let dropped = 0;
  let bytes = 0;
  let overflowing = false;
  // Overflowing: whether a line has begun that no line break has ended yet.
  let open = false;
  const splitter = lineSplitter((text) => {
    if (kept < maxLines) {
      kept++;
      onLine(text);
    } else dropped++;
  });
  const overflow = (chunk: Buffer) => {
    if (!overflowing) {
      overflowing = true;
      // The line begun before the limit is not kept: a line is kept whole or not at all.
      open = splitter.discard();
    }
    dropped += lineBreaks(chunk);
    if (chunk.length > 0) open = chunk[chunk.length - 1] !== 10;
  };
  return {
    push(chunk) {
      bytes += chunk.length;
      if (overflowing || kept >= maxLines || bytes > maxBytes) overflow(chunk);
      else splitter.push(chunk);
    },
    end(cut) {
      if (!overflowing) splitter.end(cut);
      else if (open) dropped++;
      open = false;
    },
    get droppedLines() {
      return dropped;
    },
  };
}

function lineBreaks(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

/** Bytes to lines: split on LF (a CR before it is dropped), decoding each line whole. */
function lineSplitter(onLine: (text: string) => void) {
  const pending = new HeldBytes();
  const emit = () => {
    const text = pending.text();
    pending.clear();
    onLine(text.endsWith('\r') ? text.slice(0, -1) : text);
  };
  return {
    push(chunk: Buffer) {
      let start = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        pending.add(chunk.subarray(start, i), false);
        emit();
        start = i + 1;
      }
      if (start < chunk.length) pending.add(chunk.subarray(start), false);
    },
    end(cut?: (text: string) => void) {
      if (pending.length === 0) return;
      if (cut === undefined) emit();
      else {
        cut(pending.text());
        pending.clear();
      }
    },
    /** Forget the line begun and not ended; whether there was one. */
    discard(): boolean {
      const begun = pending.length > 0;
      pending.clear();
      return begun;
    },
  };
}
