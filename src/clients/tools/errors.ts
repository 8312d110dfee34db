import type { JsonRpcErrorObject } from '../../protocol/jsonrpc/index.js';

/** The server answered a request with a JSON-RPC error. */
export class ToolServerError extends Error {
  override readonly name = 'ToolServerError';
  readonly code: number;
  readonly data: unknown;
  constructor(
    readonly method: string,
    error: JsonRpcErrorObject,
  ) {
    super(`${method}: the server answered JSON-RPC error ${error.code}: ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

/** A reply that breaks the protocol: a result of the wrong shape, an unsupported version. */
export class ToolProtocolError extends Error {
  override readonly name = 'ToolProtocolError';
  constructor(
    readonly method: string,
    message: string,
    /** What the client expected, in words. */
    readonly expected: string,
    /** What arrived (the reply or the part of it that was wrong). */
    readonly actual: unknown,
  ) {
    super(`${method}: ${message}`);
  }
}

/** No reply within the request's timeout. */
export class ToolTimeoutError extends Error {
  override readonly name = 'ToolTimeoutError';
  constructor(
    readonly method: string,
    readonly id: number,
    readonly timeoutMs: number,
  ) {
    super(`${method} (id ${id}): no reply within ${timeoutMs} ms`);
  }
}

/** The caller's AbortSignal fired before the reply arrived. */
export class ToolAbortError extends Error {
  override readonly name = 'ToolAbortError';
  constructor(
    readonly method: string,
    reason: unknown,
  ) {
    super(`${method}: aborted${reason instanceof Error ? ` (${reason.message})` : ''}`);
  }
}
