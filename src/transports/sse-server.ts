import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { KEEP_ALIVE_MS, SESSION_QUERY_PARAM, TOOL_SSE_EVENTS } from '../protocol/mcp/index.js';
import { encodeComment, encodeFrame } from '../protocol/sse/index.js';
import { type Transport, TransportClosedError, TransportError } from './transport.js';

export interface SseServerTransportOptions {
  /** The response of the `GET /sse` request, not yet written to. */
  readonly response: ServerResponse;
  /** Path the client POSTs to; the `endpoint` event announces it with the session id. Default `/messages`. */
  readonly messagePath?: string;
  /** Default a random UUID (as the MCP SDK does). */
  readonly sessionId?: string;
  /** A comment frame every this many ms (spec "Limits": 15 s); 0 turns keep-alive off. */
  readonly keepAliveMs?: number;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // Reverse proxies (nginx) buffer event streams unless told not to (spec "Errors").
  'x-accel-buffering': 'no',
} as const;

const KEEP_ALIVE_FRAME = encodeComment('keep-alive');
const RESOLVED = Promise.resolve();
const ignore = (): void => {};

/**
 * The server side of one SSE session of the tool-server transport: replies go out as
 * `event: message` frames on the GET stream, messages POSTed for this session come in
 * through `receive`. `start` writes the headers and the `endpoint` event; the client
 * closing the stream, or `close`, ends the session (onclose, once).
 */
export class SseServerTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: TransportError) => void;
  onclose?: () => void;
  readonly sessionId: string;
  /** The data of the `endpoint` event: the message path with the session id. */
  readonly endpoint: string;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly response: ServerResponse;
  private readonly keepAliveMs: number;
  private readonly onResponseClose = (): void => this.finish();

  constructor(options: SseServerTransportOptions) {
    this.response = options.response;
    this.sessionId = options.sessionId ?? randomUUID();
    this.keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    const path = options.messagePath ?? '/messages';
    const query = new URLSearchParams({ [SESSION_QUERY_PARAM]: this.sessionId });
    this.endpoint = `${path}${path.includes('?') ? '&' : '?'}${query}`;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async start(): Promise<void> {
    if (this.closed) throw new TransportClosedError(this.label());
    const res = this.response;
    res.on('close', this.onResponseClose);
    // A write racing the client's disconnect must end the session, not crash the server.
    res.on('error', this.onResponseClose);
    res.writeHead(200, SSE_HEADERS);
    // Headers and the first event leave in one packet.
    res.write(encodeFrame(TOOL_SSE_EVENTS.endpoint, this.endpoint));
    if (this.keepAliveMs > 0) {
      this.timer = setInterval(() => this.response.write(KEEP_ALIVE_FRAME), this.keepAliveMs);
      this.timer.unref();
    }
  }

  /** Write one message as an `event: message` frame, in one write. */
  send(message: unknown): Promise<void> {
    if (this.closed) return Promise.reject(new TransportClosedError(this.label()));
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (e) {
      return Promise.reject(e);
    }
    // JSON.stringify never emits a line break, so the data is one `data:` line.
    this.response.write(`event: message\ndata: ${json}\n\n`);
    return RESOLVED;
  }

  /** A message POSTed for this session, parsed. */
  receive(value: unknown): void {
    if (!this.closed) this.onmessage?.(value);
  }

  /** A POSTed body that is not JSON; the session goes on. */
  receiveUnparsable(body: string, detail: string): void {
    if (this.closed) return;
    const shown = body.length > 120 ? `${body.slice(0, 120)}...` : body;
    this.onerror?.(
      new TransportError(
        'parse',
        `POSTed body is not JSON (${detail}): ${JSON.stringify(shown)}`,
        false,
        body,
      ),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.response.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.response.off('close', this.onResponseClose);
    this.response.off('error', this.onResponseClose);
    // Errors after the end (a late write) are of no interest any more.
    this.response.on('error', ignore);
    this.onclose?.();
  }

  private label(): string {
    return `SSE session ${this.sessionId}`;
  }
}
