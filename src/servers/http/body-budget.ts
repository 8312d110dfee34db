import type { Server } from 'node:http';

/**
 * The bytes of request bodies a server holds at once. Each request is capped by the body limit,
 * but a client opening a hundred connections that each declare 32 MiB and trickle it would
 * hold gigabytes: a request reserves what it declares when it arrives (a chunked body, whose
 * size nobody knows yet, takes its bytes as they arrive) and gives them back when its
 * connection's answer ends; one that would pass the budget is refused.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Bytes reserved now. */
  get inFlight(): number {
    return this.held;
  }

  /** Reserve `bytes`; false when that would pass the budget (a request alone always fits). */
  take(bytes: number): boolean {
    if (this.held > 0 && this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  /**
   * Reserve `bytes` more for a request that holds `own` already; false when that would pass
   * the budget while other requests hold some of it (a request alone always fits, as in `take`).
   */
  takeMore(bytes: number, own: number): boolean {
    if (this.held > own && this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/** How many bodies at the limit a server holds at once by default (the messages mock's budget too). */
export const BODY_BUDGET_FACTOR = 4;

/**
 * What a request reserves of the budget when it arrives, from its headers: the declared
 * length (within the body limit); nothing for a chunked body, which takes its bytes as they
 * arrive (reserving the whole limit for each, six ordinary chunked uploads of 90 bytes
 * got 529s no fault plan asked for, and four connections sending only headers refused every
 * other request); nothing for a request without one (HTTP/1.1: no Content-Length and no
 * Transfer-Encoding is no body).
 */
export function declaredBodyBytes(
  headers: { readonly 'content-length'?: string; readonly 'transfer-encoding'?: string },
  bodyLimit: number,
): number {
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    return Number.isFinite(n) && n >= 0 ? Math.min(n, bodyLimit) : bodyLimit;
  }
  return 0;
}

/** Whether a request's body comes chunked, its size unknown until it ends. */
export function isChunkedBody(headers: {
  readonly 'content-length'?: string;
  readonly 'transfer-encoding'?: string;
}): boolean {
  return headers['content-length'] === undefined && headers['transfer-encoding'] !== undefined;
}

/**
 * One request's hold on a BodyBudget: what its headers declare, reserved up front (`open`), and
 * for a chunked body the bytes as they arrive (`received`); all given back once (`release`),
 * when the request's answer ends.
 */
export class BodyHold {
  private bytes = 0;
  private released = false;

  private constructor(
    private readonly budget: BodyBudget,
    private readonly chunked: boolean,
  ) {}

  /** The hold of a request with these headers, or the sentence of its refusal when the budget is spent. */
  static open(
    budget: BodyBudget,
    headers: { readonly 'content-length'?: string; readonly 'transfer-encoding'?: string },
    bodyLimit: number,
  ): BodyHold | string {
    const bytes = declaredBodyBytes(headers, bodyLimit);
    if (!budget.take(bytes)) {
      return `the server holds ${budget.inFlight} bytes of request bodies in flight, and this request's ${bytes} would pass its limit of ${budget.limit}; try again once they are answered`;
    }
    const hold = new BodyHold(budget, isChunkedBody(headers));
    hold.bytes = bytes;
    return hold;
  }

  /**
   * `n` more bytes of the body arrived: a chunked body takes them from the budget. Undefined
   * when they fit, else the sentence of the refusal (the rest of the body should not be read).
   */
  received(n: number): string | undefined {
    // A declared body reserved its size already; what arrives after the answer ended is not kept.
    if (!this.chunked || this.released) return undefined;
    if (!this.budget.takeMore(n, this.bytes)) {
      return `the server holds ${this.budget.inFlight} bytes of request bodies in flight, and the next ${n} bytes of this chunked body (${this.bytes} received so far) would pass its limit of ${this.budget.limit}; try again once they are answered`;
    }
    this.bytes += n;
    return undefined;
  }

  /** Give back what the request holds; later calls do nothing. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.bytes);
    this.bytes = 0;
  }
}

/** How long a request may take to arrive whole, headers and body (the messages mock's too). */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * Cut a request not received whole within `ms` (Node answers 408 and closes; a fastify app's
 * clientErrorHandler answers it). Node's own default is 300 s, fastify's none: a body that
 * stalls after its headers would hold its connection, and what it sent, for as long. Only
 * receiving the request is bounded: Node stops the clock once the request is parsed, so a long
 * answer (an event stream, a slow tool call) is never cut. Call before the server listens
 * (Node reads the checking interval then).
 */
export function limitRequestTime(server: Server, ms: number = REQUEST_TIMEOUT_MS): void {
  server.requestTimeout = ms;
  // Measured on Node 24: with a headers timeout longer than this, a stalled body was cut only
  // at the headers timeout.
  if (server.headersTimeout > ms) server.headersTimeout = ms;
  // Node checks the deadlines this often (default 30 s): a short limit (a test's) needs a shorter
  // beat. An http.Server property (createServer's option), missing from @types/node.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    30_000,
    Math.max(10, Math.floor(ms / 2)),
  );
}
