import { StreamErrorEvent, StreamProtocolError } from '../../protocol/messages/index.js';

/**
 * The failure kinds of the messages-client target contract (TARGETS.md): the spec asks
 * client libraries for distinct failures for rate limiting, connection problems and
 * non-success HTTP statuses ("Errors"), and a client without a key fails before sending
 * ("Authentication").
 */
export type MessagesClientErrorKind = 'missing_api_key' | 'rate_limit' | 'connection' | 'status' | 'stream';

interface ErrorContext {
  status?: number | undefined;
  errorType?: string | undefined;
  requestId?: string | undefined;
  cause?: unknown;
}

/** Base of every failure the messages client reports (aborts excepted: see AbortError). */
export class MessagesClientError extends Error {
  override readonly name: string = 'MessagesClientError';
  /** HTTP status of the response the failure came with; absent when there was none. */
  readonly status: number | undefined;
  /** The service's `error.type` (status body or `error` stream event). */
  readonly errorType: string | undefined;
  /** The `request-id` response header (or the body's `request_id`). */
  readonly requestId: string | undefined;

  constructor(
    readonly kind: MessagesClientErrorKind,
    message: string,
    context: ErrorContext = {},
  ) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.status = context.status;
    this.errorType = context.errorType;
    this.requestId = context.requestId;
  }
}

export class MissingApiKeyError extends MessagesClientError {
  override readonly name = 'MissingApiKeyError';
  constructor() {
    super(
      'missing_api_key',
      'no API key: set WIRECHECK_API_KEY or ANTHROPIC_API_KEY (or pass apiKey); nothing was sent',
    );
  }
}

/** HTTP 429. `retryAfterMs` is what retry-after-ms / retry-after asked for, when present. */
export class RateLimitError extends MessagesClientError {
  override readonly name = 'RateLimitError';
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    /** The parsed JSON body, or its text when it was not JSON. */
    readonly body: unknown,
    context: { errorType?: string | undefined; requestId?: string | undefined },
  ) {
    super('rate_limit', message, { ...context, status: 429 });
  }
}

/** No HTTP response could be had: refused, reset before any body byte, header timeout. */
export class ConnectionError extends MessagesClientError {
  override readonly name = 'ConnectionError';
  constructor(message: string, cause: unknown, requestId?: string) {
    super('connection', message, { cause, requestId });
  }
}

/** A non-success HTTP status other than 429. */
export class StatusError extends MessagesClientError {
  override readonly name = 'StatusError';
  declare readonly status: number;
  constructor(
    message: string,
    status: number,
    /** The parsed JSON body, or its text when it was not JSON. */
    readonly body: unknown,
    context: { errorType?: string | undefined; requestId?: string | undefined },
  ) {
    super('status', message, { ...context, status });
  }
}

/** No byte of a response body arrived for `idleMs` while the client waited for one. */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';
  constructor(
    readonly idleMs: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A response body that had not ended when the client had waited `timeoutMs` for it in all
 * (`bodyTimeoutMs`), however often bytes came: a service that sends a keep-alive comment
 * more often than the idle watchdog's limit, forever, is stopped here.
 */
export class BodyTimeoutError extends Error {
  override readonly name = 'BodyTimeoutError';
  constructor(
    readonly timeoutMs: number,
    message: string,
  ) {
    super(message);
  }
}

/** A timeout of a response body: silence (IdleTimeoutError) or no end in time (BodyTimeoutError). */
export type BodyTimeout = IdleTimeoutError | BodyTimeoutError;

export function isBodyTimeout(error: unknown): error is BodyTimeout {
  return error instanceof IdleTimeoutError || error instanceof BodyTimeoutError;
}

/** A response body went past the client's size limit; the connection was closed. */
export class BodyLimitError extends Error {
  override readonly name = 'BodyLimitError';
  constructor(
    /** The limit, in bytes (`maxBodyBytes`). */
    readonly limit: number,
    /** Bytes received when it was passed. */
    readonly bytes: number,
  ) {
    super(`the response body went past the ${limit}-byte limit (maxBodyBytes): ${bytes} bytes received`);
  }
}

/**
 * A 2xx response whose body broke the protocol: a stream that violates the Events rules,
 * carries an `error` event, ends before message_stop, goes silent (idle watchdog) or does not
 * end in time (bodyTimeoutMs), or a buffered body that is not a message. `status` is the 2xx
 * status it arrived with.
 */
export class StreamError extends MessagesClientError {
  override readonly name = 'StreamError';
  declare readonly cause: StreamProtocolError | BodyTimeout;
  constructor(
    message: string,
    cause: StreamProtocolError | BodyTimeout,
    context: { status?: number | undefined; requestId?: string | undefined },
  ) {
    super('stream', message, {
      ...context,
      cause,
      errorType: cause instanceof StreamErrorEvent ? cause.body.error.type : undefined,
    });
  }
}

/** The caller's AbortSignal fired; the connection was closed. `cause` is the signal's reason. */
export class AbortError extends Error {
  override readonly name = 'AbortError';
  constructor(message = 'the request was aborted', reason?: unknown) {
    super(message, reason === undefined ? undefined : { cause: reason });
  }
}

/** A body past `maxBodyBytes` as the client reports it: a StreamError (the payload, not the connection, is wrong). */
export function bodyTooLarge(
  error: BodyLimitError,
  context: { status?: number | undefined; requestId?: string | undefined },
  eventIndex = 0,
): StreamError {
  const cause = new StreamProtocolError(
    'shape',
    `a response body within the ${error.limit}-byte limit (maxBodyBytes)`,
    `${error.bytes} bytes and more`,
    eventIndex,
  );
  return new StreamError(error.message, cause, context);
}
