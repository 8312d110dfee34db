import { CheckFailure } from '../../harness/check.js';
import { clip } from '../../protocol/clip.js';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { createFrameDecoder, type SseFrame } from '../../protocol/sse/index.js';
import type { BufferedReply, HeaderMap, StreamComment, StreamedReply } from './replies.js';
import { messagesEndpoint } from './target.js';

/** How the suite reaches the service: the endpoint, the key, and the suite's lifetime. */
export interface ServiceClient {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Budget of one request, headers to the end of the body. */
  readonly requestTimeoutMs: number;
  /** Aborted when the suite closes. */
  readonly signal: AbortSignal;
}

export interface SendOptions {
  /** false: send no key at all (the missing-key rule). Default true. */
  readonly withKey?: boolean;
  /** Aborts this request too (a check's budget). */
  readonly signal?: AbortSignal;
}

export interface StreamOptions extends SendOptions {
  /** The client aborts the request right after the first frame for which this holds. */
  readonly abortAfter?: (frame: SseFrame) => boolean;
}

/** The request could not be completed at all: no connection, timeout, reset before the headers. */
export class RequestFailed extends CheckFailure {}

/**
 * Bounds on one reply, whatever the service sends: its bytes (MAX_BODY_BYTES, 32 MiB), its
 * time (the client's requestTimeoutMs, headers to the end of the body), the frames,
 * comments and invalid lines kept of a stream (MAX_STREAM_ITEMS each: a reply of
 * max_tokens 64 has a few dozen), and an SSE line or frame (the decoder's 16 MiB). Past
 * one, reading stops and `readError` names the limit.
 */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
export const MAX_STREAM_ITEMS = 100_000;
/** Characters of a comment or an invalid line kept. */
const MAX_LINE_KEPT = 4096;
/** 429 and 529 (overloaded) are transient on the real API: wait and send again, as its SDKs do. */
const RETRY_STATUSES = new Set([429, 529]);
const MAX_RETRIES = 2;
const MAX_RETRY_WAIT_MS = 10_000;

function requestHeaders(client: ServiceClient, withKey: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    // The spec names the version header `service-version`; the real API names it
    // `anthropic-version` and requires it. Both carry the spec's value.
    'service-version': '2023-06-01',
    'anthropic-version': '2023-06-01',
  };
  if (withKey) headers['x-api-key'] = client.apiKey;
  return headers;
}

function headerMap(headers: Headers): HeaderMap {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

function describeError(e: unknown, budgetMs?: number): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') {
    return budgetMs === undefined
      ? 'no reply within the request budget'
      : `the reply did not end within the ${budgetMs} ms budget of one request (requestTimeoutMs)`;
  }
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${e.message}: ${typeof code === 'string' ? `${code} ` : ''}${cause.message}`;
  }
  return `${e.name}: ${e.message}`;
}

function retryWaitMs(headers: Headers, attempt: number): number {
  const seconds = Number(headers.get('retry-after'));
  const wait = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 500 * 2 ** attempt;
  return Math.min(wait, MAX_RETRY_WAIT_MS);
}

async function post(
  client: ServiceClient,
  body: string,
  options: SendOptions,
  controller: AbortController,
): Promise<Response> {
  const url = messagesEndpoint(client.baseUrl);
  const signals = [client.signal, controller.signal, AbortSignal.timeout(client.requestTimeoutMs)];
  if (options.signal) signals.push(options.signal);
  const signal = AbortSignal.any(signals);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: requestHeaders(client, options.withKey ?? true),
        body,
        signal,
      });
    } catch (e) {
      throw new RequestFailed(`POST ${url} failed: ${describeError(e, client.requestTimeoutMs)}`);
    }
    if (!RETRY_STATUSES.has(response.status) || attempt >= MAX_RETRIES) return response;
    await response.body?.cancel();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, retryWaitMs(response.headers, attempt));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

/**
 * Read a body to the end, within the size cap and the request's time budget (the fetch
 * signal). `onChunk` may stop the reading by returning true, or by returning a string: why
 * the reply broke a reading limit (the body is then cancelled and that is the readError).
 */
async function readBody(
  response: Response,
  onChunk: (chunk: Uint8Array) => boolean | string,
  budgetMs?: number,
): Promise<{ stopped: boolean; readError: string | undefined }> {
  if (!response.body) return { stopped: false, readError: undefined };
  const reader = response.body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { stopped: false, readError: undefined };
      bytes += value.byteLength;
      if (bytes > MAX_BODY_BYTES) {
        await reader.cancel();
        return {
          stopped: false,
          readError: `the body went past the ${MAX_BODY_BYTES}-byte limit of one reply (MAX_BODY_BYTES) and was cut off`,
        };
      }
      const verdict = onChunk(value);
      if (typeof verdict === 'string') {
        await reader.cancel();
        return { stopped: false, readError: verdict };
      }
      if (verdict) {
        // Cancelling the body closes the connection at once, as a client that stops reading does.
        await reader.cancel();
        return { stopped: true, readError: undefined };
      }
    }
  } catch (e) {
    return { stopped: false, readError: describeError(e, budgetMs) };
  }
}

/** POST a body (any text, JSON or not) and read the whole reply. */
export async function sendBuffered(
  client: ServiceClient,
  body: string,
  options: SendOptions = {},
): Promise<BufferedReply> {
  const controller = new AbortController();
  const response = await post(client, body, options, controller);
  const chunks: Uint8Array[] = [];
  const { readError } = await readBody(
    response,
    (chunk) => {
      chunks.push(chunk);
      return false;
    },
    client.requestTimeoutMs,
  );
  if (readError !== undefined) throw new RequestFailed(`reading the reply body failed: ${readError}`);
  const text = Buffer.concat(chunks).toString('utf8');
  // Nesting is bounded before anything walks the value (schemas, comparisons, reports).
  const parsed = parseJsonBounded(text, { maxLength: MAX_BODY_BYTES });
  const json = parsed.ok ? parsed.value : undefined;
  const jsonError = parsed.ok ? undefined : parsed.message;
  return { status: response.status, headers: headerMap(response.headers), text, json, jsonError };
}

/** POST a `stream: true` body and decode the reply's SSE frames as they arrive. */
export async function sendStreamed(
  client: ServiceClient,
  body: string,
  options: StreamOptions = {},
): Promise<StreamedReply> {
  const controller = new AbortController();
  const response = await post(client, body, options, controller);
  const headers = headerMap(response.headers);
  if (response.status !== 200) {
    const reply = await sendTextOf(response, client.requestTimeoutMs);
    return { ...emptyStream(response.status, headers), text: reply.text, readError: reply.readError };
  }
  const frames: SseFrame[] = [];
  const frameTimesMs: number[] = [];
  const comments: StreamComment[] = [];
  const invalidLines: string[] = [];
  let abortNow = false;
  /** Why reading stopped at a limit of the stream (a line, a frame, too many items). */
  let overLimit: string | undefined;
  const tooMany = (what: string) => {
    overLimit ??= `wirecheck stopped reading: the stream went past ${MAX_STREAM_ITEMS} ${what} (MAX_STREAM_ITEMS)`;
  };
  // Times are taken per chunk read: every frame completed by one read arrived together.
  let firstByteAt: number | undefined;
  let now = 0;
  const decoder = createFrameDecoder({
    onFrame(frame) {
      if (frames.length >= MAX_STREAM_ITEMS) return tooMany('frames');
      frames.push(frame);
      frameTimesMs.push(now);
      if (!abortNow && options.abortAfter?.(frame)) abortNow = true;
    },
    onComment(text) {
      if (comments.length >= MAX_STREAM_ITEMS) return tooMany('comments');
      comments.push({ text: clip(text, MAX_LINE_KEPT), atMs: now, afterFrames: frames.length });
    },
    onInvalidLine(line) {
      if (invalidLines.length >= MAX_STREAM_ITEMS) return tooMany('invalid lines');
      invalidLines.push(clip(line, MAX_LINE_KEPT));
    },
    onLimit(error) {
      overLimit ??= `wirecheck stopped reading: ${error.message}`;
    },
  });
  const { stopped, readError } = await readBody(
    response,
    (chunk) => {
      const at = performance.now();
      firstByteAt ??= at;
      now = Math.round((at - firstByteAt) * 10) / 10;
      decoder.feed(chunk);
      return overLimit ?? abortNow;
    },
    client.requestTimeoutMs,
  );
  if (stopped) controller.abort();
  const unterminated = stopped || overLimit !== undefined ? '' : decoder.end();
  return {
    status: response.status,
    headers,
    frames,
    unterminated,
    invalidLines,
    text: '',
    aborted: stopped,
    readError,
    frameTimesMs,
    comments,
  };
}

async function sendTextOf(
  response: Response,
  budgetMs?: number,
): Promise<{ text: string; readError: string | undefined }> {
  const chunks: Uint8Array[] = [];
  const { readError } = await readBody(
    response,
    (chunk) => {
      chunks.push(chunk);
      return false;
    },
    budgetMs,
  );
  return { text: Buffer.concat(chunks).toString('utf8'), readError };
}

function emptyStream(status: number, headers: HeaderMap): StreamedReply {
  return {
    status,
    headers,
    frames: [],
    unterminated: '',
    invalidLines: [],
    text: '',
    aborted: false,
    readError: undefined,
  };
}
