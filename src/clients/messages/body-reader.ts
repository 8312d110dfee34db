import type { ClientRequest, IncomingMessage } from 'node:http';
import { HeldBytes } from '../../protocol/held-line.js';
import { BodyLimitError, BodyTimeoutError } from './errors.js';

/** Chunks buffered ahead of a slow consumer before the socket is paused. */
const HIGH_WATER_CHUNKS = 64;

/**
 * Pull-style reader of one response body that cannot hang and never leaks the socket.
 *
 * `read()` hands out a buffered chunk synchronously (no promise per chunk when data is
 * ahead of the consumer); `wait()` waits for the next one. The idle watchdog only runs
 * while the consumer waits, so a slow consumer is never blamed on the server: when no byte
 * arrives for `idleMs` the request is destroyed and `wait()` rejects with `idleError()`.
 * Bytes restart that watchdog, so the time spent waiting is also counted in all: past
 * `bodyMs` the body fails with `bodyTimeoutError()`, however often bytes came (a comment
 * every 50 s, forever). One timer serves both limits and a whole silence, instead of one
 * timer per chunk. A body that goes past `maxBytes` fails at once with a BodyLimitError,
 * whatever is buffered.
 */
export class BodyReader {
  /** Body bytes received so far. */
  bytes = 0;
  /** Builds the error thrown when the watchdog fires; the consumer knows where it was. */
  idleError: (idleMs: number) => Error = (idleMs) => new Error(`no body byte for ${idleMs} ms`);
  /** Builds the error thrown when the body has not ended within `bodyMs` of waiting. */
  bodyTimeoutError: (bodyMs: number) => Error = (bodyMs) =>
    new BodyTimeoutError(
      bodyMs,
      `response body not ended within ${bodyMs} ms of waiting for it (bodyTimeoutMs)`,
    );

  private readonly queue: Buffer[] = [];
  private head = 0;
  private ended = false;
  private failure: Error | undefined;
  private waiter: { resolve(chunk: Buffer | null): void; reject(error: Error): void } | undefined;
  private waitStart = 0;
  /** Milliseconds the consumer spent waiting in the waits that are over. */
  private waited = 0;
  private timer: NodeJS.Timeout | undefined;
  private paused = false;

  constructor(
    private readonly req: ClientRequest,
    private readonly res: IncomingMessage,
    private readonly idleMs: number,
    /** Called once, when the body ended or failed: release what the exchange holds. */
    private readonly onSettle: () => void,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    /** Longest time waited for the body in all (bodyTimeoutMs). */
    private readonly bodyMs = Number.POSITIVE_INFINITY,
  ) {
    res.on('data', (chunk: Buffer) => this.onData(chunk));
    res.on('end', () => this.onEnd());
    res.on('error', (error) => this.fail(error, false));
    res.on('close', () => {
      if (!this.ended) this.fail(new Error('the connection closed before the response body ended'), false);
    });
  }

  /** The next chunk if one is buffered, null at the end of the body, undefined when none is ready. */
  read(): Buffer | null | undefined {
    if (this.head < this.queue.length) {
      const chunk = this.queue[this.head++]!;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
        if (this.paused) {
          this.paused = false;
          this.res.resume();
        }
      }
      return chunk;
    }
    if (this.failure) throw this.failure;
    return this.ended ? null : undefined;
  }

  /** Wait for the next chunk (call after read() returned undefined). */
  wait(): Promise<Buffer | null> {
    const ready = this.read();
    if (ready !== undefined) return Promise.resolve(ready);
    this.waitStart = Date.now();
    if (this.timer === undefined) this.timer = setTimeout(this.onTimer, this.nextCheck(0));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Read the rest of the body into one buffer. */
  async readAll(limit = Number.POSITIVE_INFINITY): Promise<Buffer> {
    const held = new HeldBytes();
    for (;;) {
      let chunk = this.read();
      if (chunk === undefined) chunk = await this.wait();
      if (chunk === null) return held.bytes();
      held.add(chunk, false);
      if (held.length >= limit) {
        this.close();
        return held.bytes();
      }
    }
  }

  /**
   * Fail the body. `immediate` drops buffered chunks (abort, idle); otherwise they are still
   * handed out first, so a consumer sees every frame that arrived before a reset.
   */
  fail(error: Error, immediate: boolean): void {
    if (immediate) {
      this.queue.length = 0;
      this.head = 0;
    }
    if (this.failure || this.ended) return;
    this.failure = error;
    this.settle();
    this.req.destroy();
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.reject(error);
    }
  }

  /** Stop reading: closes the connection unless the body already ended. */
  close(): void {
    this.queue.length = 0;
    this.head = 0;
    if (!this.ended && !this.failure) this.fail(new Error('the body reader was closed'), true);
  }

  private onData(chunk: Buffer): void {
    if (this.failure) return;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.fail(new BodyLimitError(this.maxBytes, this.bytes), true);
      return;
    }
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      this.waited += Date.now() - this.waitStart;
      waiter.resolve(chunk);
      return;
    }
    this.queue.push(chunk);
    if (!this.paused && this.queue.length - this.head >= HIGH_WATER_CHUNKS) {
      this.paused = true;
      this.res.pause();
    }
  }

  private onEnd(): void {
    if (this.failure) return;
    this.ended = true;
    this.settle();
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve(null);
    }
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    if (!this.waiter || this.ended || this.failure) return;
    const silent = Date.now() - this.waitStart;
    if (silent >= this.idleMs) this.fail(this.idleError(this.idleMs), true);
    else if (this.waited + silent >= this.bodyMs) this.fail(this.bodyTimeoutError(this.bodyMs), true);
    else this.timer = setTimeout(this.onTimer, this.nextCheck(silent));
  };

  /** Milliseconds until the first limit can be reached, `silent` ms into the current wait. */
  private nextCheck(silent: number): number {
    return Math.min(this.idleMs - silent, this.bodyMs - this.waited - silent);
  }

  private settle(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.onSettle();
  }
}
