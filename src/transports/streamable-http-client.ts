import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { parseJsonBounded } from '../protocol/json/index.js';
import { METHODS } from '../protocol/mcp/index.js';
import {
  mcpSessionIdSchema,
  mediaTypeOf,
  requestIdsOf,
  responseIdOf,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../protocol/mcp/streamable-http.js';
import { type SseFrame, SseLimitError, type SseLimits } from '../protocol/sse/index.js';
import { readBody, readBounded } from './bounded-body.js';
import { causeOf, createAgent, httpRequest, isEventStream, pumpFrames } from './sse-client.js';
import { type Transport, TransportClosedError, TransportError, unreadableMessageEvent } from './transport.js';

/** The Accept header of every POST: the client takes either answer (MUST, 2025-03-26 and later). */
export const STREAMABLE_HTTP_POST_ACCEPT = `${STREAMABLE_HTTP_CONTENT_TYPES.json}, ${STREAMABLE_HTTP_CONTENT_TYPES.eventStream}`;

/** Largest JSON answer body read (the largest JSON text any reader parses, DEFAULT_JSON_LIMITS). */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;

export interface StreamableHttpClientTransportOptions {
  /** Extra headers on every request (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Named in errors; default "Streamable HTTP server <url>". */
  readonly label?: string;
  /** Open the optional GET stream once the session is initialized (default true). */
  readonly listen?: boolean;
  /** DELETE the session on `close()` (default true: the client no longer needs it). */
  readonly terminateOnClose?: boolean;
  /** GETs with Last-Event-ID tried for one dropped stream before giving up (default 3). */
  readonly maxResumeAttempts?: number;
  /** Wait before each of those GETs when the stream sent no `retry` field (default 100 ms). */
  readonly resumeDelayMs?: number;
  /**
   * Longest total wait before the GETs of one dropped stream (default RESUME_BUDGET_MS). A
   * stream whose `retry` would take the waits past it is given up on (RetryBeyondBudgetError),
   * never reconnected early: a server asking for hours must not hang the client.
   */
  readonly resumeBudgetMs?: number;
  /** Bound on the DELETE of `close()` (default 2000 ms). */
  readonly closeTimeoutMs?: number;
  /** Of every event stream read (default DEFAULT_SSE_LIMITS, 16 MiB a line and a frame). */
  readonly limits?: SseLimits;
  /** Largest `application/json` answer read (default MAX_JSON_ANSWER_BYTES). */
  readonly maxJsonBytes?: number;
}

/** Default `resumeBudgetMs`: the official SDK client's longest reconnection delay. */
export const RESUME_BUDGET_MS = 30_000;

/**
 * A dropped stream's `retry` field asked for a longer wait before reconnecting than the
 * client's reconnection budget has left. The client MUST wait that long (2025-11-25), so it
 * gives up instead of reconnecting early.
 */
export class RetryBeyondBudgetError extends TransportError {
  constructor(
    label: string,
    /** The `retry` the server sent, in ms. */
    readonly retryMs: number,
    /** The client's budget for the waits of one stream, in ms. */
    readonly budgetMs: number,
    /** Ms of it already waited before earlier GETs of the stream. */
    readonly waitedMs: number,
    /** What ended, e.g. "the event stream ended before the responses to request 2 arrived". */
    ended: string,
    fatal: boolean,
  ) {
    super(
      'connection',
      `${label}: ${ended}, and its retry field asks for ${retryMs} ms before reconnecting, more than the ${budgetMs - waitedMs} ms left of the client's ${budgetMs}-ms reconnection budget; the client gives up rather than reconnect early`,
      fatal,
    );
  }
}

/**
 * A request carrying a session id was answered 404: the server ended the session. The
 * transport has forgotten the id; the client MUST start a new session with a new
 * `initialize` (no session id attached).
 */
export class SessionExpiredError extends TransportError {
  readonly sessionExpired = true;
  constructor(label: string, sessionId: string, body: string) {
    super(
      'http',
      `${label}: the server answered HTTP 404 to a request of session ${JSON.stringify(sessionId)}: the session ended, a new one must be initialized`,
      false,
      body,
      404,
    );
  }
}

export function isSessionExpired(e: unknown): e is SessionExpiredError {
  return e instanceof SessionExpiredError;
}

function isMethod(message: unknown, method: string): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    !Array.isArray(message) &&
    (message as { method?: unknown }).method === method
  );
}

/** One event stream being read: a POST's answer, or the GET stream, with what it still owes. */
interface StreamState {
  readonly origin: 'post' | 'get';
  /** Requests whose responses this stream still owes (empty for the GET stream). */
  readonly awaiting: Set<string | number>;
  lastEventId: string | undefined;
  resumes: number;
  /** The last `retry` field it carried (ms): how long to wait before reconnecting. */
  retryMs: number | undefined;
  /** Ms waited before its GETs so far. */
  waitedMs: number;
}

/**
 * The client side of MCP's Streamable HTTP transport (revisions 2025-03-26, 2025-06-18,
 * 2025-11-25): every message is one POST to the endpoint, with `Accept: application/json,
 * text/event-stream`; the answer is 202 (nothing to answer), one JSON body, or an event
 * stream carrying the responses (and the server's own messages before them).
 *
 * - Session: the `Mcp-Session-Id` of the server's answer to `initialize` is sent on every
 *   later request; a 404 to a request carrying it rejects `send` with a SessionExpiredError
 *   and forgets the id (the client re-initializes: ToolClient does). An `initialize` is
 *   always sent without a session id.
 * - `MCP-Protocol-Version`: once the client calls `setProtocolVersion` (after initialize),
 *   sent on every request (MUST in 2025-06-18 and later; harmless before).
 * - GET stream: opened once `notifications/initialized` was accepted (option `listen`); a
 *   405 means the server offers none.
 * - Resumption: an answer stream that ends before every response it owes arrived is resumed
 *   with GET and `Last-Event-ID` (the last event id it carried), at most
 *   `maxResumeAttempts` times; a stream without event ids cannot be resumed. Before each GET
 *   the client waits the stream's `retry` field (MUST, 2025-11-25), or `resumeDelayMs` when it
 *   sent none; a `retry` that would take the waits past `resumeBudgetMs` is given up on
 *   (RetryBeyondBudgetError). Giving up is fatal (onerror, then onclose): the requests
 *   waiting on it would otherwise hang.
 * - `close()` sends DELETE with the session id (SHOULD, when the session is not needed any
 *   more; 405 is the server's right), bounded by `closeTimeoutMs`.
 * - Reading is bounded like SseClientTransport's: event streams by the SSE decoder's limits
 *   (over them: fatal `framing`), a JSON answer by `maxJsonBytes` and parseJsonBounded.
 */
export class StreamableHttpClientTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: TransportError) => void;
  onclose?: () => void;
  private readonly url: URL;
  private readonly label: string;
  private readonly controller = new AbortController();
  private readonly agent: HttpAgent;
  private readonly reading = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private session: string | undefined;
  private version: string | undefined;
  private started = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private listening = false;

  constructor(
    url: string | URL,
    private readonly options: StreamableHttpClientTransportOptions = {},
  ) {
    this.url = new URL(url);
    this.label = options.label ?? `Streamable HTTP server ${this.url.href}`;
    this.agent = createAgent(this.url);
  }

  /** The session id the server issued, while the session lasts. */
  get sessionId(): string | undefined {
    return this.session;
  }

  get protocolVersion(): string | undefined {
    return this.version;
  }

  /** The version negotiated at initialize: sent as `MCP-Protocol-Version` from now on. */
  setProtocolVersion(version: string): void {
    this.version = version;
  }

  /** Nothing to connect: the first POST opens the session. */
  async start(): Promise<void> {
    if (this.started) throw new Error(`${this.label}: start() was called twice`);
    this.started = true;
  }

  async send(message: unknown): Promise<void> {
    if (this.closed) throw new TransportClosedError(this.label);
    const initializing = isMethod(message, METHODS.initialize);
    if (initializing) {
      // A new session: no id, and the version of the old one no longer holds.
      this.session = undefined;
      this.version = undefined;
    }
    const sentSession = this.session;
    let response: IncomingMessage;
    try {
      response = await httpRequest(this.url, {
        method: 'POST',
        headers: {
          ...this.sessionHeaders(),
          'content-type': STREAMABLE_HTTP_CONTENT_TYPES.json,
          accept: STREAMABLE_HTTP_POST_ACCEPT,
        },
        body: JSON.stringify(message),
        agent: this.agent,
        signal: this.controller.signal,
      });
    } catch (e) {
      if (this.closed) throw new TransportClosedError(this.label);
      throw new TransportError('connection', `${this.label}: POST failed: ${causeOf(e)}`, false);
    }
    const status = response.statusCode ?? 0;
    if (status === 404 && sentSession !== undefined) {
      const body = await readBody(response);
      this.session = undefined;
      throw new SessionExpiredError(this.label, sentSession, body);
    }
    if (status < 200 || status > 299) {
      const body = await readBody(response);
      const error = new TransportError(
        'http',
        `${this.label}: POST answered HTTP ${status}, expected 200 or 202: ${body}`,
        false,
        body,
        status,
      );
      this.onerror?.(error);
      throw error;
    }
    this.takeSessionId(response, initializing);
    const awaiting = requestIdsOf(message);
    if (status === 202 || awaiting.size === 0) {
      await readBody(response);
      if (status === 202 && isMethod(message, METHODS.initialized)) this.listen();
      return;
    }
    const contentType = response.headers['content-type'];
    if (isEventStream(contentType)) {
      this.readStream(response, {
        origin: 'post',
        awaiting,
        lastEventId: undefined,
        resumes: 0,
        retryMs: undefined,
        waitedMs: 0,
      });
      return;
    }
    if (mediaTypeOf(contentType) === STREAMABLE_HTTP_CONTENT_TYPES.json) {
      this.deliverJson(await this.readJson(response));
      return;
    }
    response.destroy();
    throw this.report(
      new TransportError(
        'protocol',
        `${this.label}: a POST carrying a request was answered with content type ${JSON.stringify(contentType)}, expected application/json or text/event-stream`,
        false,
      ),
    );
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const wasClosed = this.closed;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.controller.abort();
    if (!wasClosed && this.session !== undefined && this.options.terminateOnClose !== false) {
      await this.terminate(this.session);
    }
    await Promise.allSettled([...this.reading]);
    this.agent.destroy();
    if (!wasClosed) this.onclose?.();
  }

  /** DELETE the session; any answer (200, 404, 405) ends it as far as this client is concerned. */
  private async terminate(session: string): Promise<void> {
    try {
      const response = await httpRequest(this.url, {
        method: 'DELETE',
        headers: { ...this.options.headers, ...this.sessionHeaders(session) },
        agent: this.agent,
        signal: AbortSignal.timeout(this.options.closeTimeoutMs ?? 2_000),
      });
      await readBody(response);
    } catch {
      // Best effort: the server may be gone already.
    }
    this.session = undefined;
  }

  private sessionHeaders(session = this.session): Record<string, string> {
    return {
      ...this.options.headers,
      ...(session === undefined ? {} : { [STREAMABLE_HTTP_HEADERS.sessionId]: session }),
      ...(this.version === undefined ? {} : { [STREAMABLE_HTTP_HEADERS.protocolVersion]: this.version }),
    };
  }

  private takeSessionId(response: IncomingMessage, initializing: boolean): void {
    const raw = response.headers[STREAMABLE_HTTP_HEADERS.sessionId];
    const id = Array.isArray(raw) ? raw[0] : raw;
    if (id === undefined || (!initializing && this.session !== undefined)) return;
    const parsed = mcpSessionIdSchema.safeParse(id);
    if (!parsed.success) {
      this.report(
        new TransportError(
          'protocol',
          `${this.label}: the Mcp-Session-Id ${JSON.stringify(id)} is not visible ASCII (0x21 to 0x7E); it is not sent back`,
          false,
          id,
        ),
      );
      return;
    }
    this.session = parsed.data;
  }

  private async readJson(response: IncomingMessage): Promise<unknown> {
    const max = this.options.maxJsonBytes ?? MAX_JSON_ANSWER_BYTES;
    const body = await readBounded(response, max);
    if (body.over) {
      throw this.report(
        new TransportError(
          'framing',
          `${this.label}: the JSON answer went on past the ${max}-byte limit; it was not read`,
          false,
        ),
      );
    }
    if (body.error !== undefined) {
      throw this.report(
        new TransportError(
          'connection',
          `${this.label}: the JSON answer broke off: ${causeOf(body.error)}`,
          false,
        ),
      );
    }
    const text = body.bytes.toString('utf8');
    const parsed = parseJsonBounded(text);
    if (!parsed.ok) {
      throw this.report(
        new TransportError(
          'parse',
          `${this.label}: the JSON answer cannot be read (${parsed.message}): ${JSON.stringify(text.slice(0, 120))}`,
          false,
          text,
        ),
      );
    }
    return parsed.value;
  }

  private deliverJson(value: unknown): void {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (this.closed) return;
      this.onmessage?.(item);
    }
  }

  /** Open the optional GET stream once (its absence, 405, is the server's right). */
  private listen(): void {
    if (this.listening || this.options.listen === false || this.closed) return;
    this.listening = true;
    void this.openGet({
      origin: 'get',
      awaiting: new Set(),
      lastEventId: undefined,
      resumes: 0,
      retryMs: undefined,
      waitedMs: 0,
    }).catch((e: unknown) => {
      if (!this.closed) this.onerror?.(toTransportError(e, `${this.label}: the GET stream`));
    });
  }

  /** GET an event stream: the standalone one, or (with a last event id) the rest of a dropped one. */
  private async openGet(state: StreamState): Promise<void> {
    const response = await httpRequest(this.url, {
      method: 'GET',
      headers: {
        ...this.sessionHeaders(),
        accept: STREAMABLE_HTTP_CONTENT_TYPES.eventStream,
        ...(state.lastEventId === undefined
          ? {}
          : { [STREAMABLE_HTTP_HEADERS.lastEventId]: state.lastEventId }),
      },
      agent: this.agent,
      signal: this.controller.signal,
    });
    const status = response.statusCode ?? 0;
    if (status === 405 && state.lastEventId === undefined) {
      await readBody(response);
      return;
    }
    if (status !== 200 || !isEventStream(response.headers['content-type'])) {
      const body = await readBody(response);
      throw new TransportError(
        'http',
        `${this.label}: GET${state.lastEventId === undefined ? '' : ` with Last-Event-ID ${JSON.stringify(state.lastEventId)}`} answered HTTP ${status} (${JSON.stringify(response.headers['content-type'])}), expected 200 with an event stream: ${body}`,
        false,
        body,
        status,
      );
    }
    this.readStream(response, state);
  }

  private readStream(body: Readable, state: StreamState): void {
    const done = this.pump(body, state).finally(() => this.reading.delete(done));
    this.reading.add(done);
  }

  private async pump(body: Readable, state: StreamState): Promise<void> {
    let broke: string | undefined;
    try {
      const unterminated = await pumpFrames(
        body,
        {
          onFrame: (f) => this.onFrame(f, state),
          onRetry: (ms) => {
            state.retryMs = ms;
          },
        },
        this.controller.signal,
        this.options.limits,
      );
      if (unterminated !== '' && !this.closed) {
        this.onerror?.(
          new TransportError(
            'framing',
            `${this.label}: an event stream ended inside a frame (no blank line after it): ${unterminated.slice(0, 200)}`,
            false,
            unterminated,
          ),
        );
      }
    } catch (e) {
      if (e instanceof SseLimitError) {
        this.fail(
          new TransportError(
            'framing',
            `${this.label}: an event stream was closed: ${e.message}`,
            true,
            e.head,
          ),
        );
        return;
      }
      broke = causeOf(e);
    }
    if (this.closed) return;
    if (state.awaiting.size === 0 && (state.origin === 'post' || state.lastEventId === undefined)) return;
    this.resume(state, broke);
  }

  /** GET with Last-Event-ID after a wait, a bounded number of times; then give up (fatal for a POST's stream). */
  private resume(state: StreamState, why: string | undefined): void {
    const ended = why === undefined ? 'ended' : `broke (${why})`;
    const owed = [...state.awaiting].map((id) => JSON.stringify(id)).join(', ');
    const max = this.options.maxResumeAttempts ?? 3;
    if (state.lastEventId === undefined || state.resumes >= max) {
      const reason =
        state.lastEventId === undefined
          ? 'it carried no event id to resume from'
          : `${max} GETs with Last-Event-ID did not bring them`;
      const error = new TransportError(
        'connection',
        `${this.label}: the event stream ${ended} before the responses to request ${owed} arrived, and ${reason}`,
        state.origin === 'post',
      );
      if (state.origin === 'post') this.fail(error);
      else this.onerror?.(error);
      return;
    }
    const delay = state.retryMs ?? this.options.resumeDelayMs ?? 100;
    const budget = this.options.resumeBudgetMs ?? RESUME_BUDGET_MS;
    // Only the server's own retry is judged against the budget: resumeDelayMs is the caller's choice.
    if (state.retryMs !== undefined && state.waitedMs + delay > budget) {
      const error = new RetryBeyondBudgetError(
        this.label,
        delay,
        budget,
        state.waitedMs,
        state.origin === 'post'
          ? `the event stream ${ended} before the responses to request ${owed} arrived`
          : `the GET stream ${ended}`,
        state.origin === 'post',
      );
      if (state.origin === 'post') this.fail(error);
      else this.onerror?.(error);
      return;
    }
    state.resumes++;
    state.waitedMs += delay;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      this.openGet(state).catch((e: unknown) => {
        if (this.closed) return;
        this.onerror?.(toTransportError(e, `${this.label}: resuming a stream`));
        this.resume(state, causeOf(e));
      });
    }, delay);
    this.timers.add(timer);
  }

  private onFrame(frame: SseFrame, state: StreamState): void {
    if (this.closed) return;
    if (frame.id !== undefined && frame.id !== '') state.lastEventId = frame.id;
    // An event without data primes a resumption (2025-11-25): it carries only its id.
    if (frame.data === '') return;
    if (frame.event !== undefined && frame.event !== 'message') return;
    const parsed = parseJsonBounded(frame.data);
    if (!parsed.ok) {
      this.onerror?.(unreadableMessageEvent(this.label, frame.data, parsed.message));
      return;
    }
    for (const item of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) {
      const id = responseIdOf(item);
      if (id !== undefined) state.awaiting.delete(id);
      this.onmessage?.(item);
      if (this.closed) return;
    }
  }

  private report(error: TransportError): TransportError {
    this.onerror?.(error);
    return error;
  }

  /** A fault the session cannot go on after: report it, end everything (no DELETE: the server broke it). */
  private fail(error: TransportError): void {
    if (this.closed) return;
    this.onerror?.(error);
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.controller.abort();
    this.closing = Promise.allSettled([...this.reading]).then(() => {
      this.agent.destroy();
    });
    this.onclose?.();
  }
}

function toTransportError(e: unknown, what: string): TransportError {
  return e instanceof TransportError ? e : new TransportError('connection', `${what}: ${causeOf(e)}`, false);
}
