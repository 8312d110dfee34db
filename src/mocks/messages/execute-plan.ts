import type { ServerResponse } from 'node:http';
import type { KeepAlive, Reusable, StreamStep } from './plan-stream.js';

/** How serving a stream ended. */
export type StreamEnd = 'completed' | 'client-aborted' | 'disconnected';

/** Counters the executor keeps current while it writes (the journal entry reads them). */
export interface StreamProgress {
  framesWritten: number;
  bytesWritten: number;
}

/**
 * Watches a response for the client going away, and makes every pause cancellable, so
 * that when the client leaves the executor stops at once: timers cleared, nothing more
 * written.
 */
export class ConnectionWatch {
  gone = false;
  /** framesWritten when the client went away. */
  goneAtFrame: number | undefined;
  private wakers = new Set<() => void>();
  private closingOnPurpose = false;

  constructor(
    private readonly res: ServerResponse,
    progress: StreamProgress,
  ) {
    res.on('error', () => {});
    res.once('close', () => {
      if (res.writableFinished || this.closingOnPurpose) return;
      this.gone = true;
      this.goneAtFrame = progress.framesWritten;
      for (const wake of this.wakers) wake();
      this.wakers.clear();
    });
  }

  /** The mock itself is about to cut the connection: not a client abort. */
  expectClose(): void {
    this.closingOnPurpose = true;
  }

  sleep(ms: number): Promise<void> {
    if (this.gone) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.wakers.add(wake);
    });
  }

  /** Resolves when the client has gone. */
  untilGone(): Promise<void> {
    if (this.gone) return Promise.resolve();
    return new Promise((resolve) => this.wakers.add(resolve));
  }

  /** Resolves on 'drain' of the response, or when the client has gone. */
  drain(): Promise<void> {
    if (this.gone) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.wakers.delete(done);
        resolve();
      };
      this.res.once('drain', done);
      this.wakers.add(done);
    });
  }

  /** Resolves once every byte written so far has left the process (handed to the kernel). */
  async flushed(): Promise<void> {
    // Node corks the socket for the rest of the tick in which the response wrote.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const socket = this.res.socket;
    while (socket && !this.gone && socket.writableLength > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          this.wakers.delete(done);
          resolve();
        };
        socket.once('drain', done);
        this.wakers.add(done);
      });
    }
  }
}

/**
 * Runs a plan on a response whose headers are set (not yet sent): writes with
 * backpressure (awaits 'drain' whenever write() says so), pauses on cancellable timers,
 * cuts the connection after flushing, and stops the moment the client goes away.
 * Pauses shorter than 1 ms accumulate into one timer, and every pause is measured from the
 * stream's start, so a scripted rate holds on average without a timer per frame.
 */
export async function executePlan(
  res: ServerResponse,
  steps: Iterable<StreamStep>,
  watch: ConnectionWatch,
  progress: StreamProgress,
): Promise<StreamEnd> {
  let wrote = false;
  let due = performance.now();
  const write = (data: string | Uint8Array): boolean => {
    wrote = true;
    progress.bytesWritten += byteLength(data);
    return res.write(data);
  };
  // Writes are reported written in groups, by the callback of the last write of each:
  // a socket completes its writes in order, so when that callback runs the bytes of the
  // whole group have been handed to the OS. A callback per write costs more than
  // reporting them in groups (a closure per write, kept alive by the socket until sent).
  let unreported: Reusable[] = [];
  let unreportedBytes = 0;
  const reportOnce = (): (() => void) => {
    const group = unreported;
    unreported = [];
    unreportedBytes = 0;
    return () => {
      for (const written of group) written.reuse();
    };
  };
  const writeStep = (step: Extract<StreamStep, { kind: 'write' }>, lastOfRun: boolean): boolean => {
    const data = step.data;
    wrote = true;
    progress.bytesWritten += byteLength(data);
    if (step.written) {
      unreported.push(step.written);
      unreportedBytes += data.length;
    }
    // The group closes before any pause (its memory must not wait on the pause) and every
    // REPORT_BYTES, so a long run of writes cycles through a few slabs.
    if (unreported.length > 0 && (lastOfRun || unreportedBytes >= REPORT_BYTES))
      return res.write(data, reportOnce());
    return res.write(data);
  };
  const endWith = (data?: string | Uint8Array): void => {
    const report = unreported.length > 0 ? reportOnce() : undefined;
    // 'finish': every byte, this last one included, has been handed to the OS.
    if (data === undefined) report ? res.end(report) : res.end();
    else report ? res.end(data, report) : res.end(data);
  };
  // A pause must not keep the headers back: clients time out on them.
  const headersOut = () => {
    if (!wrote) {
      res.flushHeaders();
      wrote = true;
    }
  };
  const pause = async (ms: number, keepAlive: KeepAlive | undefined) => {
    let remaining = ms;
    while (remaining > 0 && !watch.gone) {
      const slice = keepAlive ? Math.min(remaining, keepAlive.everyMs) : remaining;
      await watch.sleep(slice);
      remaining -= slice;
      if (keepAlive && remaining > 0 && !watch.gone && !write(keepAlive.data)) await watch.drain();
    }
  };

  // The last write is held until the next step is known: before `end` it goes out with
  // res.end(data), one chunk less for a short stream.
  let held: Extract<StreamStep, { kind: 'write' }> | undefined;
  for (const step of steps) {
    if (watch.gone) return 'client-aborted';
    if (held) {
      if (step.kind === 'end') {
        progress.bytesWritten += byteLength(held.data);
        progress.framesWritten = held.framesDone;
        if (held.written) unreported.push(held.written);
        endWith(held.data);
        return 'completed';
      }
      const ok = writeStep(held, step.kind !== 'write');
      progress.framesWritten = held.framesDone;
      held = undefined;
      if (!ok) await watch.drain();
      if (watch.gone) return 'client-aborted';
    }
    switch (step.kind) {
      case 'write': {
        held = step;
        break;
      }
      case 'wait': {
        // Deadlines are kept on one timeline from the stream's start: a timer that fires late
        // (they all do, by up to a millisecond or more) is made up by the frames after it, so
        // the schedule holds on average instead of drifting later with every pause.
        const now = performance.now();
        due += step.ms;
        const left = due - now;
        if (left >= 1 || step.keepAlive) {
          headersOut();
          await pause(left, step.keepAlive);
        }
        break;
      }
      case 'stall': {
        headersOut();
        const keepAlive = step.keepAlive;
        if (!keepAlive) await watch.untilGone();
        while (keepAlive && !watch.gone) {
          await watch.sleep(keepAlive.everyMs);
          if (!watch.gone && !write(keepAlive.data)) await watch.drain();
        }
        break;
      }
      case 'flush': {
        headersOut();
        await watch.flushed();
        break;
      }
      case 'disconnect': {
        headersOut();
        await watch.flushed();
        if (watch.gone) return 'client-aborted';
        watch.expectClose();
        res.destroy();
        return 'disconnected';
      }
      case 'end': {
        endWith();
        return 'completed';
      }
    }
  }
  if (watch.gone) return 'client-aborted';
  if (held) {
    progress.bytesWritten += byteLength(held.data);
    progress.framesWritten = held.framesDone;
    if (held.written) unreported.push(held.written);
    endWith(held.data);
  } else endWith();
  return 'completed';
}

/** Bytes of writes a group holds before its last write carries the report (see executePlan). */
const REPORT_BYTES = 16 * 1024;

function byteLength(data: string | Uint8Array): number {
  return typeof data === 'string' ? Buffer.byteLength(data) : data.length;
}
