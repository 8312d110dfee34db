/**
 * The bytes of request bodies a mock holds at once. Each request is capped by the body limit,
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
