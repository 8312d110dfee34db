/**
 * One duplex channel of JSON-RPC messages, whatever carries it (stdio, a child process,
 * SSE + POST, memory). Modelled on the MCP SDK's Transport: `start` once, then `send`;
 * everything that arrives goes to `onmessage`, problems to `onerror`, the end to `onclose`.
 *
 * Contract:
 * - `onmessage` receives each parsed JSON value in arrival order, validated as JSON only:
 *   the protocol layer (classifyMessage) decides what it is, so a transport never drops a
 *   message a check may want to see.
 * - `onerror` reports input that could not be framed or parsed (a non-JSON line, an SSE
 *   frame that is not JSON) and transport failures (a POST answered 4xx); the transport
 *   decides whether it can go on and calls `onclose` when it cannot.
 * - `onclose` is called exactly once, after which `send` rejects.
 * - `close` is idempotent and resolves once the underlying resources are released.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: unknown) => void;
  onerror?: (error: TransportError) => void;
  onclose?: () => void;
  /** Told the version negotiated at initialize (Streamable HTTP sends it as a header). */
  setProtocolVersion?(version: string): void;
}

/** Why a transport reported a problem; `fatal` ones are followed by onclose. */
export type TransportErrorKind =
  | 'parse' // a line or frame that is not JSON
  | 'framing' // bytes that cannot be framed (an unterminated last line, an oversized line)
  | 'http' // a non-success HTTP status
  | 'connection' // the peer is gone or could not be reached
  | 'protocol'; // the transport's own rules were broken (no endpoint event, ...)

export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
    readonly fatal: boolean,
    /** The offending line, frame or body, when there was one. */
    readonly input?: string,
    /** The HTTP status, for kind `http`. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A `message` event of an SSE stream whose data is not JSON that can be read: not fatal, the stream goes on. */
export function unreadableMessageEvent(label: string, data: string, reason: string): TransportError {
  return new TransportError(
    'parse',
    `${label}: a \`message\` event is not JSON that can be read (${reason}): ${JSON.stringify(data.slice(0, 120))}`,
    false,
    data,
  );
}

/** Thrown by `send` after the transport closed. */
export class TransportClosedError extends Error {
  override readonly name = 'TransportClosedError';
  constructor(what: string) {
    super(`${what}: the transport is closed`);
  }
}
