import {
  type Message,
  StreamErrorEvent,
  type StreamEvent,
  StreamProtocolError,
} from '../../protocol/messages/index.js';
import {
  AbortError,
  BodyLimitError,
  BodyTimeoutError,
  bodyTooLarge,
  IdleTimeoutError,
  isBodyTimeout,
  MessagesClientError,
  StreamError,
} from './errors.js';
import { abortErrorOf, bodyTimeoutMessage, type OpenResponse } from './exchange.js';
import { MessageFrameReducer } from './frame-reducer.js';

/**
 * One streamed messages response. Iterate it for the events (pings, frames without an
 * event line and unknown event names are not yielded), or call finalMessage() for the
 * reduced message; both may be used together if iteration starts first. Either one sends
 * the request (lazily, so an unconsumed stream sends nothing). Breaking out of the
 * iteration closes the connection.
 *
 * Failures: StreamError (protocol violation, `error` event, truncation, idle watchdog),
 * RateLimitError / StatusError / ConnectionError (before the stream), AbortError.
 */
export class MessageStream implements AsyncIterable<StreamEvent> {
  private readonly reducer = new MessageFrameReducer();
  private mode: 'idle' | 'iterating' | 'consuming' = 'idle';
  private opened: OpenResponse | undefined;
  private readonly outcome: Promise<Message>;
  private resolveOutcome!: (message: Message) => void;
  private rejectOutcome!: (error: unknown) => void;
  private settled = false;

  constructor(
    private readonly open: () => Promise<OpenResponse>,
    private readonly signal?: AbortSignal,
  ) {
    this.outcome = new Promise<Message>((resolve, reject) => {
      this.resolveOutcome = resolve;
      this.rejectOutcome = reject;
    });
    // Marked handled: a stream whose finalMessage() nobody asked for must not crash the process.
    this.outcome.catch(() => {});
    // finalMessage() settles on abort even while an iteration sits suspended at a yield.
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.settle(undefined, abortErrorOf(this.signal!));
  };

  /** The `request-id` header of the response, once it arrived. */
  get requestId(): string | undefined {
    return this.opened?.requestId;
  }

  /** Frame counts so far (every frame; those without an event line; unknown event names). */
  get stats(): {
    frames: number;
    framesWithoutEvent: number;
    unknownEventCount: number;
    unknownEvents: readonly string[];
  } {
    const r = this.reducer;
    return {
      frames: r.frames,
      framesWithoutEvent: r.framesWithoutEvent,
      unknownEventCount: r.unknownEventCount,
      unknownEvents: r.unknownEvents,
    };
  }

  /** The message the stream reduces to (Events rules 1 and 3 enforced). */
  finalMessage(): Promise<Message> {
    if (this.mode === 'idle') {
      this.mode = 'consuming';
      this.consume().then(
        (message) => this.settle(message, undefined),
        (error: unknown) => this.settle(undefined, error),
      );
    }
    return this.outcome;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.mode !== 'idle') {
      throw new Error(
        `this MessageStream is already ${this.mode === 'iterating' ? 'being iterated' : 'consumed by finalMessage()'}: iterate it once, before calling finalMessage()`,
      );
    }
    this.mode = 'iterating';
    return this.iterate();
  }

  private async start(): Promise<OpenResponse> {
    const opened = await this.open();
    this.opened = opened;
    opened.reader.idleError = (ms) =>
      new IdleTimeoutError(ms, `stream idle for ${ms} ms after frame ${this.reducer.frames}`);
    opened.reader.bodyTimeoutError = (ms) =>
      new BodyTimeoutError(ms, bodyTimeoutMessage(ms, `after frame ${this.reducer.frames}`, true));
    const contentType = opened.headers['content-type'];
    // Lenient on parameters (charset) and on an absent header; strict on another media type.
    if (contentType !== undefined && !contentType.toLowerCase().startsWith('text/event-stream')) {
      opened.reader.close();
      const cause = new StreamProtocolError('shape', 'content-type text/event-stream', contentType, 0);
      throw new StreamError(`a streamed response must be text/event-stream, got ${contentType}`, cause, {
        status: opened.status,
        requestId: opened.requestId,
      });
    }
    return opened;
  }

  private async consume(): Promise<Message> {
    const { reader, first } = await this.start();
    try {
      let chunk: Buffer | null | undefined = first;
      while (chunk !== null) {
        this.reducer.feed(chunk);
        chunk = reader.read();
        if (chunk === undefined) chunk = await reader.wait();
      }
      return this.reducer.end();
    } catch (error) {
      reader.close();
      throw this.clientError(error);
    }
  }

  private async *iterate(): AsyncGenerator<StreamEvent> {
    let opened: OpenResponse;
    try {
      opened = await this.start();
    } catch (error) {
      this.settle(undefined, error);
      throw error;
    }
    const { reader } = opened;
    const batch: StreamEvent[] = [];
    try {
      let chunk: Buffer | null | undefined = opened.first;
      while (chunk !== null) {
        let violation: unknown;
        try {
          this.reducer.feed(chunk, batch);
        } catch (error) {
          violation = error;
        }
        // Events accepted before a violation in the same chunk are still delivered.
        for (let i = 0; i < batch.length; i++) yield batch[i]!;
        batch.length = 0;
        if (violation !== undefined) throw violation;
        chunk = reader.read();
        if (chunk === undefined) chunk = await reader.wait();
      }
      this.settle(this.reducer.end(), undefined);
    } catch (error) {
      reader.close();
      const failure = this.clientError(error);
      this.settle(undefined, failure);
      throw failure;
    } finally {
      if (!this.settled) {
        // The consumer stopped early (break/return): stop generation by closing the connection.
        reader.close();
        this.settle(undefined, new AbortError('the stream iteration stopped before message_stop'));
      }
    }
  }

  private settle(message: Message | undefined, error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    if (message !== undefined) this.resolveOutcome(message);
    else this.rejectOutcome(error);
  }

  /** Every failure of the body phase as the client's error types. */
  private clientError(error: unknown): unknown {
    if (error instanceof MessagesClientError || error instanceof AbortError) return error;
    const r = this.reducer;
    const context = { status: this.opened?.status, requestId: this.opened?.requestId };
    if (error instanceof StreamErrorEvent) {
      const { type, message } = error.body.error;
      return new StreamError(
        `frame ${r.frames}: the service sent an error event: ${type}: ${message}`,
        error,
        {
          ...context,
          requestId: context.requestId ?? error.body.request_id ?? undefined,
        },
      );
    }
    if (error instanceof StreamProtocolError) {
      const where =
        error.kind === 'truncated' ? `after frame ${r.frames}` : `frame ${r.frames} (event ${r.lastEvent})`;
      return new StreamError(`${where}: ${error.message}`, error, context);
    }
    if (isBodyTimeout(error)) return new StreamError(error.message, error, context);
    if (error instanceof BodyLimitError) {
      return bodyTooLarge(error, context, r.eventCount);
    }
    // The connection failed mid-body: the stream is cut short.
    const reason = error instanceof Error ? error.message : String(error);
    const cause = new StreamProtocolError(
      'truncated',
      'message_stop before the connection closes',
      `the connection closed (${reason})`,
      r.eventCount,
    );
    return new StreamError(`after frame ${r.frames}: ${cause.message}`, cause, context);
  }
}
