import type { IncomingMessage, Server } from 'node:http';
import { type Readable, Transform } from 'node:stream';

/**
 * The bytes of request bodies a server holds at once. Each request is capped by the body limit,
 * but a client opening a hundred connections that each declare 32 MiB and trickle it would
 * hold gigabytes: a request reserves what it declares when it arrives (a chunked body, whose
 * size nobody knows yet, takes its bytes as they arrive) and gives them back when its
 * connection's answer ends; one that would pass the budget is refused.
 */
export class BodyBudget {
  private held = 0;

  constructor(
    readonly limit: number,
    private readonly wording: BudgetWording = SERVER_WORDING,
  ) {}

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

  /** The sentence refusing `what` (the bytes a request asked for), in this budget's wording. */
  refusal(what: string): string {
    return `${this.wording.holder} holds ${this.held} bytes of request bodies in flight, and ${what} would pass its limit of ${this.limit}${this.wording.ending}`;
  }
}

/** How a budget's refusals name who holds the bodies, and what follows the limit. */
export interface BudgetWording {
  /** Who holds the bodies, as the sentence begins: "the server". */
  readonly holder: string;
  /** What follows the limit: what to do, or which option sets it. */
  readonly ending: string;
}

const SERVER_WORDING: BudgetWording = {
  holder: 'the server',
  ending: '; try again once they are answered',
};

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
function declaredBodyBytes(
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
function isChunkedBody(headers: {
  readonly 'content-length'?: string;
  readonly 'transfer-encoding'?: string;
}): boolean {
  return headers['content-length'] === undefined && headers['transfer-encoding'] !== undefined;
}

/**
 * The length a request declares (Content-Length) when it is over `bodyLimit`, else undefined.
 * Such a body is refused 413 at once, whatever the budget holds: the budget's refusal (503, the
 * messages mock's 529) tells the client to try again, and no retry makes this body fit.
 */
export function declaredOverLimit(
  headers: { readonly 'content-length'?: string },
  bodyLimit: number,
): number | undefined {
  const declared = Number(headers['content-length']);
  return Number.isFinite(declared) && declared > bodyLimit ? declared : undefined;
}

/** A request's answer (a ServerResponse), as far as a hold watches it end. */
export interface Answer {
  once(event: 'finish' | 'close', listener: () => void): unknown;
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
    if (!budget.take(bytes)) return budget.refusal(`this request's ${bytes}`);
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
      return this.budget.refusal(`the next ${n} bytes of this chunked body (${this.bytes} received so far)`);
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

  /** Release once `res` ends: 'finish' when the answer was written, 'close' when it was cut. */
  releaseWhenAnswered(res: Answer): void {
    const release = () => this.release();
    res.once('finish', release);
    res.once('close', release);
  }

  /**
   * `payload` as the body parser should read it: a chunked body through a meter that takes its
   * bytes from the budget as they arrive and fails with `refused(why)` once the next ones would
   * pass it (the rest is never read); any other body as it is.
   */
  metered(payload: Readable, refused: (why: string) => Error): Readable {
    if (!this.chunked) return payload;
    const meter = new Transform({
      transform: (chunk: Buffer, _encoding, next) => {
        const why = this.received(chunk.length);
        if (why === undefined) next(null, chunk);
        else next(refused(why));
      },
    });
    payload.pipe(meter);
    payload.once('error', (error) => meter.destroy(error));
    return meter;
  }
}

/**
 * The holds of one server's requests on its budget, for a server whose body parser reads a
 * stream it is handed (fastify's preParsing): `reserve` when the headers arrive, `metered` for
 * the body.
 */
export class RequestHolds {
  private readonly holds = new WeakMap<IncomingMessage, BodyHold>();

  constructor(
    readonly budget: BodyBudget,
    readonly bodyLimit: number,
  ) {}

  /**
   * Reserve what `req` declares, given back once `res` ends; the sentence of the refusal when
   * the budget is spent. A body declared over the limit reserves nothing: it is refused 413 at
   * once by the body parser (nothing of it is read), whatever the budget holds.
   */
  reserve(req: IncomingMessage, res: Answer): string | undefined {
    if (declaredOverLimit(req.headers, this.bodyLimit) !== undefined) return undefined;
    const hold = BodyHold.open(this.budget, req.headers, this.bodyLimit);
    if (typeof hold === 'string') return hold;
    this.holds.set(req, hold);
    hold.releaseWhenAnswered(res);
    return undefined;
  }

  /** The body of `req` metered by its hold (BodyHold.metered); as it is when it holds nothing. */
  metered(req: IncomingMessage, payload: Readable, refused: (why: string) => Error): Readable {
    return this.holds.get(req)?.metered(payload, refused) ?? payload;
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
