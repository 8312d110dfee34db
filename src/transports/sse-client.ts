import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { parseJsonBounded } from '../protocol/json/index.js';
import { resolveEndpoint, sessionIdOf, TOOL_SSE_EVENTS } from '../protocol/mcp/index.js';
import { createFrameDecoder, type SseFrame, SseLimitError, type SseLimits } from '../protocol/sse/index.js';
import { readBody } from './bounded-body.js';
import { nodeHttp } from './node-http.js';
import { type Transport, TransportClosedError, TransportError, unreadableMessageEvent } from './transport.js';

/** How long `start` waits for the `endpoint` event when not told (the spec's probe budget). */
export const DEFAULT_ENDPOINT_TIMEOUT_MS = 5_000;

export interface SseClientTransportOptions {
  /** Bound on the wait for the `endpoint` event after the stream opened. */
  readonly endpointTimeoutMs?: number;
  /**
   * Extra headers on the GET and every POST (e.g. `Authorization`). They go to the stream's
   * origin only: an `endpoint` event naming another origin gets POSTs without them, unless
   * `headersToOtherOrigin` is set.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Send `headers` on POSTs to an announced endpoint of another origin too (default false). */
  readonly headersToOtherOrigin?: boolean;
  /** Named in errors; default "SSE server <url>". */
  readonly label?: string;
}

/** What the stream's body delivered, for callers that read an event stream themselves. */
export interface FrameSink {
  onFrame(frame: SseFrame): void;
  onComment?(comment: string): void;
  /** A `retry:` field: the reconnection time the server asks for, in ms. */
  onRetry?(ms: number): void;
}

/**
 * A private keep-alive pool for one transport or probe: destroying it closes every socket
 * it opened, so nothing lingers after `close()` (the global fetch pool keeps and even
 * reopens sockets on its own).
 */
export function createAgent(url: URL): HttpAgent {
  // node:https (and TLS) is loaded only for an https URL.
  return url.protocol === 'https:'
    ? new (process.getBuiltinModule('node:https').Agent)({ keepAlive: true })
    : new nodeHttp.Agent({ keepAlive: true });
}

export interface HttpRequestOptions {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly agent: HttpAgent;
  readonly signal?: AbortSignal;
}

/** One HTTP request (node:http / node:https); resolves with the response once its headers arrived. */
export function httpRequest(url: URL, options: HttpRequestOptions): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : nodeHttp.request;
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: options.method, headers, agent: options.agent, signal: options.signal },
      resolve,
    );
    // `on`, not `once`: an abort after the response can emit a second error.
    req.on('error', reject);
    req.end(options.body);
  });
}

/** GET an event stream (`Accept: text/event-stream`); the caller checks status and content type. */
export function openEventStream(
  url: URL,
  agent: HttpAgent,
  signal?: AbortSignal,
  headers: Readonly<Record<string, string>> = {},
): Promise<IncomingMessage> {
  return httpRequest(url, {
    method: 'GET',
    headers: { ...headers, accept: 'text/event-stream' },
    agent,
    signal,
  });
}

/**
 * Feed a response body through the SSE frame decoder until it ends, or until `stop` fires
 * (the body is then destroyed). Resolves with the text of an unterminated last frame (''
 * when the stream ended cleanly, or was stopped); rejects when the connection broke, and
 * with the SseLimitError when a line or frame passed the decoder's limits (the body is
 * then destroyed: the server broke the protocol, and nothing more of it is read).
 */
export function pumpFrames(
  body: Readable,
  sink: FrameSink,
  stop?: AbortSignal,
  limits?: SseLimits,
): Promise<string> {
  let overLimit: SseLimitError | undefined;
  const decoder = createFrameDecoder({
    onFrame: (f) => {
      if (overLimit === undefined) sink.onFrame(f);
    },
    onComment: (c) => sink.onComment?.(c),
    onRetry: (ms) => {
      if (overLimit === undefined) sink.onRetry?.(ms);
    },
    onLimit: (e) => {
      overLimit ??= e;
      body.destroy();
    },
    ...(limits === undefined ? {} : { limits }),
  });
  return new Promise((resolve, reject) => {
    let stopped = false;
    const halt = () => {
      stopped = true;
      body.destroy();
    };
    let settled = false;
    const done = (error?: Error) => {
      if (settled) return;
      settled = true;
      stop?.removeEventListener('abort', halt);
      body.off('data', feed);
      if (overLimit !== undefined) reject(overLimit);
      else if (error !== undefined && !stopped) reject(error);
      else resolve(stopped ? '' : decoder.end());
    };
    const feed = (chunk: Buffer) => {
      if (overLimit === undefined) decoder.feed(chunk);
      if (overLimit !== undefined) done();
    };
    body.on('data', feed);
    body.once('end', () => done());
    body.on('error', (e) => done(e));
    body.once('close', () =>
      done(body.readableEnded ? undefined : new Error('the connection closed mid-stream')),
    );
    if (stop?.aborted) halt();
    else stop?.addEventListener('abort', halt, { once: true });
  });
}

export function isEventStream(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*text\/event-stream\s*(;|$)/i.test(contentType);
}

/**
 * The client side of the tool server's SSE transport (MCP 2024-11-05 "HTTP with SSE"): a GET
 * stream that announces the POST endpoint in its first `endpoint` event and then carries
 * every server message as a `message` event; each client message is one POST to that
 * endpoint. `start` resolves once the endpoint is known.
 *
 * - The endpoint: an absolute URL is used as is, a path is prefixed with the stream URL's
 *   origin (spec "Tool server, SSE transport"). A later `endpoint` event is ignored: the
 *   session is the one announced first. An endpoint that is not http(s) fails `start`.
 *   Configured headers (credentials, typically) are not sent to an endpoint of another
 *   origin: whatever can write into the stream could otherwise steer them to a host of its
 *   choosing. The spec's rule (use it as is) is kept; the official SDK refuses such an
 *   endpoint outright.
 * - A POST answered 200 or 202 is a success (the spec: 202, "200 also accepted"); its body is
 *   read and dropped, as the reply travels on the stream. Any other status rejects `send`
 *   with a TransportError of kind `http` carrying the status and the body (and is reported
 *   to `onerror`, not fatal).
 * - A `message` event (or a frame without an event name, which SSE calls `message`) whose
 *   data is not JSON, or is nested deeper than 512 levels (parseJsonBounded), is reported to
 *   `onerror` (kind `parse`, not fatal) and skipped; comment frames (keep-alive) and events
 *   of other names are ignored.
 * - A line or frame past the decoder's limits (16 MiB each, DEFAULT_SSE_LIMITS) ends the
 *   transport: `onerror` (kind `framing`, fatal, naming the limit), then `onclose`. No more
 *   than the limit is ever held.
 * - The stream ending or breaking ends the transport: `onclose`.
 *
 * A server's reply can arrive on the stream before the POST's 202 (the MCP SDK's does):
 * whoever waits for a reply must register for it before calling `send`.
 */
export class SseClientTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: TransportError) => void;
  onclose?: () => void;
  private readonly streamUrl: URL;
  private readonly label: string;
  private readonly controller = new AbortController();
  private readonly agent: HttpAgent;
  /** The POSTs' pool: the stream's, unless the endpoint has another scheme. */
  private postAgent: HttpAgent;
  private endpointUrl: URL | undefined;
  private started = false;
  private closed = false;
  private pump: Promise<void> | undefined;
  private endpointWaiter: { resolve: () => void; reject: (e: TransportError) => void } | undefined;

  constructor(
    streamUrl: string | URL,
    private readonly options: SseClientTransportOptions = {},
  ) {
    this.streamUrl = new URL(streamUrl);
    this.label = options.label ?? `SSE server ${this.streamUrl.href}`;
    this.agent = createAgent(this.streamUrl);
    this.postAgent = this.agent;
  }

  /** The POST endpoint, once the `endpoint` event arrived. */
  get endpoint(): URL | undefined {
    return this.endpointUrl;
  }

  /** The session id of the endpoint (its `sessionId` query parameter), if any. */
  get sessionId(): string | undefined {
    return this.endpointUrl === undefined ? undefined : sessionIdOf(this.endpointUrl);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error(`${this.label}: start() was called twice`);
    this.started = true;
    let response: IncomingMessage;
    try {
      response = await openEventStream(
        this.streamUrl,
        this.agent,
        this.controller.signal,
        this.options.headers,
      );
    } catch (e) {
      throw this.fail(new TransportError('connection', `${this.label}: GET failed: ${causeOf(e)}`, true));
    }
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      const body = await readBody(response);
      throw this.fail(
        new TransportError(
          'http',
          `${this.label}: GET answered HTTP ${status}, expected 200 with an event stream: ${body}`,
          true,
          body,
          status,
        ),
      );
    }
    const contentType = response.headers['content-type'];
    if (!isEventStream(contentType)) {
      response.destroy();
      throw this.fail(
        new TransportError(
          'protocol',
          `${this.label}: GET answered content type ${JSON.stringify(contentType)}, expected text/event-stream`,
          true,
        ),
      );
    }
    const endpointKnown = new Promise<void>((resolve, reject) => {
      this.endpointWaiter = { resolve, reject };
    });
    this.pump = this.read(response);
    const timeoutMs = this.options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    const timer = setTimeout(() => {
      this.endpointWaiter?.reject(
        new TransportError(
          'protocol',
          `${this.label}: no \`endpoint\` event within ${timeoutMs} ms of the stream opening`,
          true,
        ),
      );
    }, timeoutMs);
    try {
      await endpointKnown;
    } catch (e) {
      await this.close();
      throw e;
    } finally {
      clearTimeout(timer);
      this.endpointWaiter = undefined;
    }
  }

  async send(message: unknown): Promise<void> {
    if (this.closed) throw new TransportClosedError(this.label);
    const endpoint = this.endpointUrl;
    if (endpoint === undefined) throw new Error(`${this.label}: send() before start() resolved`);
    const withheld = this.withheldHeaders(endpoint);
    let response: IncomingMessage;
    try {
      response = await httpRequest(endpoint, {
        method: 'POST',
        headers: { ...(withheld ? {} : this.options.headers), 'content-type': 'application/json' },
        body: JSON.stringify(message),
        agent: this.postAgent,
        signal: this.controller.signal,
      });
    } catch (e) {
      if (this.closed) throw new TransportClosedError(this.label);
      throw new TransportError(
        'connection',
        `${this.label}: POST ${endpoint.href} failed: ${causeOf(e)}`,
        false,
      );
    }
    const status = response.statusCode ?? 0;
    // The body (202 "Accepted" or nothing) is read to free the connection, then dropped.
    const body = await readBody(response);
    if (status === 200 || status === 202) return;
    const note = withheld
      ? ` (the configured headers were not sent: ${endpoint.origin} is not the stream's origin; headersToOtherOrigin sends them)`
      : '';
    const error = new TransportError(
      'http',
      `${this.label}: POST ${endpoint.href} answered HTTP ${status}, expected 202 or 200${note}: ${body}`,
      false,
      body,
      status,
    );
    this.onerror?.(error);
    throw error;
  }

  async close(): Promise<void> {
    if (this.closed) {
      await this.pump;
      return;
    }
    this.closed = true;
    this.controller.abort();
    await this.pump;
    this.destroyAgents();
    this.onclose?.();
  }

  /** Whether the configured headers stay off a POST to `endpoint` (another origin). */
  private withheldHeaders(endpoint: URL): boolean {
    const configured = this.options.headers;
    if (configured === undefined || Object.keys(configured).length === 0) return false;
    return endpoint.origin !== this.streamUrl.origin && this.options.headersToOtherOrigin !== true;
  }

  private destroyAgents(): void {
    this.agent.destroy();
    if (this.postAgent !== this.agent) this.postAgent.destroy();
  }

  private async read(body: Readable): Promise<void> {
    let ending: TransportError;
    try {
      const unterminated = await pumpFrames(body, { onFrame: (f) => this.onFrame(f) });
      if (unterminated !== '') {
        this.onerror?.(
          new TransportError(
            'framing',
            `${this.label}: the stream ended inside a frame (no blank line after it): ${unterminated.slice(0, 200)}`,
            false,
            unterminated,
          ),
        );
      }
      ending = new TransportError('connection', `${this.label}: the server ended the stream`, true);
    } catch (e) {
      ending =
        e instanceof SseLimitError
          ? new TransportError('framing', `${this.label}: the stream was closed: ${e.message}`, true, e.head)
          : new TransportError('connection', `${this.label}: the stream broke: ${causeOf(e)}`, true);
    }
    if (this.closed) return;
    this.endpointWaiter?.reject(
      new TransportError('protocol', `${ending.message} before the \`endpoint\` event`, true),
    );
    if (this.endpointWaiter === undefined) this.onerror?.(ending);
    this.closed = true;
    this.destroyAgents();
    this.onclose?.();
  }

  private onFrame(frame: SseFrame): void {
    if (this.closed) return;
    const event = frame.event ?? TOOL_SSE_EVENTS.message;
    if (event === TOOL_SSE_EVENTS.endpoint) {
      if (this.endpointUrl !== undefined) return;
      try {
        const endpoint = resolveEndpoint(frame.data, this.streamUrl.href);
        if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
          throw new Error(`its scheme ${endpoint.protocol} is not http: or https:`);
        }
        if (endpoint.protocol !== this.streamUrl.protocol) this.postAgent = createAgent(endpoint);
        this.endpointUrl = endpoint;
      } catch (e) {
        this.endpointWaiter?.reject(
          new TransportError(
            'protocol',
            `${this.label}: the \`endpoint\` event's data ${JSON.stringify(frame.data)} is not a usable URL or path: ${causeOf(e)}`,
            true,
            frame.data,
          ),
        );
        return;
      }
      this.endpointWaiter?.resolve();
      return;
    }
    if (event !== TOOL_SSE_EVENTS.message) return;
    const parsed = parseJsonBounded(frame.data);
    if (!parsed.ok) {
      this.onerror?.(unreadableMessageEvent(this.label, frame.data, parsed.message));
      return;
    }
    this.onmessage?.(parsed.value);
  }

  private fail(error: TransportError): TransportError {
    this.closed = true;
    this.controller.abort();
    this.destroyAgents();
    return error;
  }
}

/** The useful part of a request failure (fetch hides the reason in `cause`). */
export function causeOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error) return `${e.message} (${cause.message})`;
  return e.message;
}
