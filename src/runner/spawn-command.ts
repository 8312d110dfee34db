import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { type CapturedStream, createOutputCapture, type OutputCapture } from '../protocol/bash/index.js';
import type { SpawnSpec } from './command-line.js';
import { killGroup } from './kill.js';
import { closeFifo, type OpenFifo } from './output-fifos.js';

/** One command to start and watch to its end. */
export interface SpawnRequest {
  readonly spec: SpawnSpec;
  /** Written to the `script-in` fd, when the spec has one. */
  readonly script: string;
  /** The open fd handed over as the `marker` fd, when the spec has one. */
  readonly markerFd?: number | undefined;
  readonly timeoutMs: number;
  /** Between the terminate signal and the kill signal. */
  readonly graceMs: number;
  /** How long output may still arrive after the shell exited. */
  readonly drainMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Called once the shell has exited and its group was killed, before the drain wait. */
  readonly afterExit?: (() => Promise<void>) | undefined;
  /** Fresh FIFOs for stdout and stderr (owned from here on); absent: Node's pipes. */
  readonly fifos?: readonly [OpenFifo, OpenFifo] | undefined;
}

export type SpawnOutcome =
  | {
      readonly kind: 'exited';
      /** The shell's exit code; a death by signal n is 128+n. */
      readonly exitCode: number;
      readonly timedOut: boolean;
      readonly stdout: CapturedStream;
      readonly stderr: CapturedStream;
      readonly durationMs: number;
    }
  | { readonly kind: 'spawn-failed'; readonly reason: string; readonly durationMs: number }
  | { readonly kind: 'aborted'; readonly durationMs: number };

/** `{"child-pid": 1234, …}` from bwrap's --info-fd. */
const CHILD_PID = /"child-pid"\s*:\s*(\d+)/;

export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : constants.signals[signal];
  return number === undefined ? -1 : 128 + number;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined || error.message.includes(code) ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}

/** Node's own read size for pipes. */
const READ_BUFFER_BYTES = 64 * 1024;

const elapsed = (since: number): number => Math.round(performance.now() - since);

/**
 * Starts the command in its own session and process group (`detached`) with stdin closed,
 * keeps at most the captured prefix of stdout and stderr while reading them to the end,
 * and enforces the timeout: the terminate signal to the command's group (the sandbox's own
 * group under bwrap, whose pid comes through --info-fd), then after the grace the kill
 * signal to every group involved. When the shell exits, its group is killed at once (no
 * background job outlives its command), and output is read for at most the drain window:
 * a process that escaped the group while holding the pipes cannot hold the runner.
 */
export function spawnCommand(request: SpawnRequest): Promise<SpawnOutcome> {
  const started = performance.now();
  const { spec } = request;
  const { fifos } = request;
  const closeWriteEnds = () => {
    for (const fifo of fifos ?? []) closeFifo({ readFd: -1, writeFd: fifo.writeFd });
  };
  const closeFifos = () => {
    for (const fifo of fifos ?? []) closeFifo(fifo);
  };
  if (request.signal?.aborted) {
    closeFifos();
    return Promise.resolve({ kind: 'aborted', durationMs: 0 });
  }
  const stdio: StdioOptions = [
    'ignore',
    fifos?.[0].writeFd ?? 'pipe',
    fifos?.[1].writeFd ?? 'pipe',
    ...spec.extraFds.map((kind) => (kind === 'marker' ? (request.markerFd ?? 'ignore') : 'pipe')),
  ];
  let child: ChildProcess;
  try {
    child = spawn(spec.file, [...spec.args], {
      cwd: spec.cwd,
      env: { ...spec.env },
      detached: true,
      stdio,
      ...(spec.runAs === null ? {} : { uid: spec.runAs.uid, gid: spec.runAs.gid }),
    });
  } catch (error) {
    closeFifos();
    return Promise.resolve({
      kind: 'spawn-failed',
      reason: describeError(error),
      durationMs: elapsed(started),
    });
  }
  // The child holds its own copies now: EOF comes when the last of the command's writers closes.
  closeWriteEnds();
  return watch(child, request, started);
}

/**
 * Reads a FIFO's read end into one buffer reused for every read: Node's default of a fresh
 * 64 KiB buffer per read leaves garbage that waits for the GC, ~70 MiB of RSS for 1 GiB.
 */
function fifoReader(fd: number, capture: OutputCapture): Socket {
  return new Socket({
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (bytes: number, buffer: Uint8Array) => {
        capture.push(buffer.subarray(0, bytes));
        return true;
      },
    },
  });
}

function watch(child: ChildProcess, request: SpawnRequest, started: number): Promise<SpawnOutcome> {
  const { spec, fifos } = request;
  const stdout = createOutputCapture();
  const stderr = createOutputCapture();
  const outputs =
    fifos === undefined
      ? [child.stdout, child.stderr]
      : [fifoReader(fifos[0].readFd, stdout), fifoReader(fifos[1].readFd, stderr)];
  const streams = [...child.stdio, ...(fifos === undefined ? [] : outputs)].filter(
    (s): s is Readable | Writable => s !== null && s !== undefined,
  );
  // stdout, stderr and bwrap's info pipe: read to their end (or the drain window) on exit.
  const readables = [
    ...outputs,
    ...spec.extraFds.map((kind, index) =>
      kind === 'info-out' ? (child.stdio[3 + index] as Readable | null) : null,
    ),
  ];
  for (const stream of streams) stream.on('error', () => {});
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  let sandboxPid: number | undefined;
  spec.extraFds.forEach((kind, index) => {
    const stream = child.stdio[3 + index];
    if (kind === 'script-in') (stream as Writable | null)?.end(request.script);
    if (kind === 'seccomp-in') (stream as Writable | null)?.end(spec.seccomp);
    if (kind === 'info-out') {
      let info = '';
      (stream as Readable | null)?.on('data', (chunk: Buffer) => {
        info += chunk.toString('utf8');
        const match = CHILD_PID.exec(info);
        if (match !== null) sandboxPid = Number(match[1]);
      });
    }
  });

  const groups = (): (number | undefined)[] => [child.pid, sandboxPid];
  let timedOut = false;
  let aborted = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const timeoutTimer = setTimeout(() => {
    timedOut = true;
    // SIGTERM to bwrap itself would kill the sandbox at once: signal the sandbox's group.
    killGroup(sandboxPid ?? child.pid, 'SIGTERM');
    graceTimer = setTimeout(() => {
      for (const pgid of groups()) killGroup(pgid, 'SIGKILL');
    }, request.graceMs);
  }, request.timeoutMs);
  const onAbort = () => {
    aborted = true;
    for (const pgid of groups()) killGroup(pgid, 'SIGKILL');
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });

  const stopTimers = () => {
    clearTimeout(timeoutTimer);
    clearTimeout(graceTimer);
    request.signal?.removeEventListener('abort', onAbort);
  };
  const closeAll = () => {
    for (const stream of streams) stream.destroy();
  };

  return new Promise((resolve) => {
    let settled = false;
    child.on('error', (error) => {
      // An error after the process started (a failed kill) changes nothing; before, it is
      // the spawn failure itself (program not found, cwd missing, uid not allowed).
      if (settled || child.pid !== undefined) return;
      settled = true;
      stopTimers();
      closeAll();
      resolve({ kind: 'spawn-failed', reason: describeError(error), durationMs: elapsed(started) });
    });
    child.once('exit', async (code, signal) => {
      if (settled) return;
      settled = true;
      stopTimers();
      for (const pgid of groups()) killGroup(pgid, 'SIGKILL');
      // Hunting leftovers is best effort: a failure there must not cost the result.
      await request.afterExit?.().catch(() => {});
      await drained(readables, request.drainMs);
      closeAll();
      const durationMs = elapsed(started);
      if (aborted) return resolve({ kind: 'aborted', durationMs });
      if (spec.extraFds.includes('info-out') && sandboxPid === undefined && !timedOut) {
        // bwrap gave no pid: it failed before creating the sandbox (a namespace it could not create).
        const said = new TextDecoder().decode(stderr.result().head).trim();
        const reason =
          said === '' ? `the sandbox exited with ${exitCodeOf(code, signal)} before starting` : said;
        return resolve({ kind: 'spawn-failed', reason, durationMs });
      }
      resolve({
        kind: 'exited',
        exitCode: exitCodeOf(code, signal),
        timedOut,
        stdout: stdout.result(),
        stderr: stderr.result(),
        durationMs,
      });
    });
  });
}

/** Resolves when every stream has closed, or when `ms` have passed. */
function drained(streams: (Readable | null)[], ms: number): Promise<void> {
  const open = streams.filter((s): s is Readable => s !== null && !s.closed);
  if (open.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let left = open.length;
    const timer = setTimeout(resolve, ms);
    for (const stream of open) {
      stream.once('close', () => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  });
}
