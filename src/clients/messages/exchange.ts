import type { IncomingHttpHeaders } from 'node:http';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { ErrorBody } from '../../protocol/messages/index.js';
import { nodeHttp } from '../../transports/node-http.js';
import { VERSION } from '../../version.js';
import { BodyReader } from './body-reader.js';
import {
  AbortError,
  BodyLimitError,
  BodyTimeoutError,
  bodyTooLarge,
  ConnectionError,
  IdleTimeoutError,
  isBodyTimeout,
  type MessagesClientError,
  RateLimitError,
  StatusError,
  StreamError,
} from './errors.js';
import type { ResolvedOptions } from './options.js';
import { parseRetryAfter, retryDelay, shouldRetryStatus } from './retry.js';

/** A 2xx response whose body is being read; `first` is its first chunk (null: empty body). */
export interface OpenResponse {
  status: number;
  headers: IncomingHttpHeaders;
  requestId: string | undefined;
  reader: BodyReader;
  first: Buffer | null;
}

/** Error bodies are read for their `error.type`; more than this is not needed. */
const ERROR_BODY_LIMIT = 1 << 20;

export function abortErrorOf(signal: AbortSignal): AbortError {
  return new AbortError('the request was aborted', signal.reason);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** One HTTP attempt, up to the response headers. Rejects with ConnectionError or AbortError. */
function attempt(
  options: ResolvedOptions,
  body: string,
  stream: boolean,
  signal: AbortSignal | undefined,
): Promise<{ status: number; headers: IncomingHttpHeaders; reader: BodyReader }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortErrorOf(signal));
      return;
    }
    const url = `${options.baseUrl}/v1/messages`;
    // node:https (and TLS) is loaded only for an https URL: a start against a local mock skips it.
    const send = url.startsWith('https:') ? process.getBuiltinModule('node:https').request : nodeHttp.request;
    const req = send(url, {
      method: 'POST',
      headers: {
        'x-api-key': options.apiKey,
        ...versionHeaders(options.versionHeader, options.version),
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        'user-agent': `wirecheck/${VERSION}`,
        'content-length': Buffer.byteLength(body),
      },
    });
    let reader: BodyReader | undefined;
    let headersArrived = false;
    const release = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      const error = abortErrorOf(signal!);
      if (reader) {
        reader.fail(error, true);
      } else {
        release();
        req.destroy();
        reject(error);
      }
    };
    const timer = setTimeout(() => {
      req.destroy(new Error(`no response headers within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error) => {
      if (headersArrived) return; // the body reader reports failures after the headers
      release();
      reject(
        signal?.aborted
          ? abortErrorOf(signal)
          : new ConnectionError(`cannot reach ${url}: ${error.message}`, error),
      );
    });
    req.on('response', (res) => {
      headersArrived = true;
      clearTimeout(timer);
      reader = new BodyReader(
        req,
        res,
        options.idleTimeoutMs,
        release,
        options.maxBodyBytes,
        options.bodyTimeoutMs,
      );
      resolve({ status: res.statusCode ?? 0, headers: res.headers, reader });
    });
    req.end(body);
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortErrorOf(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortErrorOf(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parseBody(text: string): unknown {
  const parsed = parseJsonBounded(text);
  return parsed.ok ? parsed.value : text;
}

function abbreviate(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}... (${text.length} chars)`;
}

/** RateLimitError or StatusError for a non-2xx response, from its status, headers and body. */
export function statusErrorOf(
  status: number,
  headers: IncomingHttpHeaders,
  text: string,
  nowMs: number,
): RateLimitError | StatusError {
  const body = parseBody(text);
  const parsed = ErrorBody.safeParse(body);
  const errorType = parsed.success ? parsed.data.error.type : undefined;
  const requestId =
    header(headers, 'request-id') ?? (parsed.success ? parsed.data.request_id : undefined) ?? undefined;
  const detail = parsed.success
    ? `${parsed.data.error.type}: ${parsed.data.error.message}`
    : `body ${JSON.stringify(abbreviate(text))}`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(
      header(headers, 'retry-after-ms'),
      header(headers, 'retry-after'),
      nowMs,
    );
    const after = retryAfterMs === undefined ? '' : ` (retry after ${retryAfterMs} ms)`;
    return new RateLimitError(`HTTP 429 rate limited${after}: ${detail}`, retryAfterMs, body, {
      errorType,
      requestId,
    });
  }
  return new StatusError(`HTTP ${status}: ${detail}`, status, body, { errorType, requestId });
}

/**
 * POST /v1/messages until a 2xx response has delivered its first body byte (or ended),
 * retrying retryable statuses and connection failures that happen before any body byte.
 * Throws the last RateLimitError / StatusError / ConnectionError, or AbortError.
 */
export async function openMessagesResponse(
  options: ResolvedOptions,
  body: string,
  stream: boolean,
  signal: AbortSignal | undefined,
): Promise<OpenResponse> {
  for (let retries = 0; ; retries++) {
    let failure: MessagesClientError;
    let retryAfterMs: number | undefined;
    let retryable: boolean;
    try {
      const { status, headers, reader } = await attempt(options, body, stream, signal);
      const requestId = header(headers, 'request-id');
      if (status >= 200 && status < 300) {
        reader.idleError = (ms) =>
          new IdleTimeoutError(
            ms,
            stream
              ? `stream idle for ${ms} ms after frame 0`
              : `response body idle for ${ms} ms after 0 bytes`,
          );
        reader.bodyTimeoutError = (ms) =>
          new BodyTimeoutError(
            ms,
            bodyTimeoutMessage(ms, stream ? 'after frame 0' : 'after 0 bytes', stream),
          );
        try {
          let first = reader.read();
          if (first === undefined) first = await reader.wait();
          return { status, headers, requestId, reader, first };
        } catch (error) {
          if (error instanceof AbortError) throw error;
          if (error instanceof BodyLimitError) throw bodyTooLarge(error, { status, requestId });
          if (isBodyTimeout(error)) {
            throw stream
              ? new StreamError(error.message, error, { status, requestId })
              : new ConnectionError(error.message, error, requestId);
          }
          // Reset after the headers but before any body byte: nothing was consumed, so retry.
          const reason = error instanceof Error ? error.message : String(error);
          throw new ConnectionError(
            `the connection closed before any body byte: ${reason}`,
            error,
            requestId,
          );
        }
      }
      let text = '';
      try {
        text = (await reader.readAll(ERROR_BODY_LIMIT)).toString('utf8');
      } catch (error) {
        if (error instanceof AbortError) throw error;
        // The status is known; a body cut short only loses detail.
      }
      failure = statusErrorOf(status, headers, text, Date.now());
      retryAfterMs =
        failure instanceof RateLimitError
          ? failure.retryAfterMs
          : parseRetryAfter(header(headers, 'retry-after-ms'), header(headers, 'retry-after'), Date.now());
      retryable = shouldRetryStatus(status, header(headers, 'x-should-retry'));
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      failure = error;
      retryAfterMs = undefined;
      // A stalled body is not retried: another attempt would likely stall as long again.
      retryable = !isBodyTimeout(error.cause);
    }
    const delay = retryable ? retryDelay(retries, options.maxRetries, retryAfterMs) : undefined;
    if (delay === undefined) throw failure;
    await sleep(delay, signal);
  }
}

/** Why a body timed out at `bodyTimeoutMs`, and where it was (`after frame 3`, `after 120 bytes`). */
export function bodyTimeoutMessage(ms: number, where: string, stream: boolean): string {
  const what = stream ? 'stream' : 'response body';
  return `${what} not ended within ${ms} ms of waiting for it (bodyTimeoutMs): still open ${where}`;
}

function versionHeaders(which: ResolvedOptions['versionHeader'], version: string): Record<string, string> {
  if (which === 'both') return { 'anthropic-version': version, 'service-version': version };
  return { [which]: version };
}
