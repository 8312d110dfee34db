/**
 * The bytes of request bodies a mock holds at once. Each request is capped by the body limit,
 * but a client opening a hundred connections that each declare 32 MiB and trickle it would
 * hold gigabytes: a request reserves what it declares when it arrives and gives it back when
 * its connection's answer ends, and one that would pass the budget is refused at once.
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

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/**
 * What a request's body may come to, from its headers: the declared length (within the body
 * limit), the whole limit for a chunked body, nothing for a request without one (HTTP/1.1: no
 * Content-Length and no Transfer-Encoding is no body).
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
  return headers['transfer-encoding'] === undefined ? 0 : bodyLimit;
}
