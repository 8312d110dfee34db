import { CheckFailure, TargetGone } from '../../harness/check.js';
import { UsageError } from '../../harness/errors.js';
import { createFrameDecoder, type SseFrame } from '../../protocol/sse/index.js';
import type { BufferedReply, HeaderMap, StreamComment, StreamedReply } from './replies.js';
import { messagesEndpoint } from './target.js';

/** How the suite reaches the service: the endpoint, the key, and the suite's lifetime. */
export interface ServiceClient {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Budget of one request, headers to the end of the body. */
  readonly requestTimeoutMs: number;
  /** Most bytes read of one reply body (a stream that never ends stops here). */
  readonly maxBodyBytes?: number;
  /** Aborted when the suite closes. */
  readonly signal: AbortSignal;
  /** Counts replies that ran past their budget, and ends the run when a service keeps doing it. */
  readonly runaway?: RunawayGuard;
}

/**
 * Replies that do not end within the request's budget (time or bytes) cost the suite the
 * whole budget each: after `limit` of them the service is treated as gone (TargetGone),
 * so a service that streams forever costs the suite at most `limit` budgets, not one per
 * request (issue: 14 requests x 60 s).
 */
export class RunawayGuard {
  private readonly seen: string[] = [];
  constructor(readonly limit: number) {}

  /** Throws TargetGone once `limit` replies ran past their budget. */
  check(): void {
    if (this.seen.length < this.limit) return;
    const cause = `the service did not end ${this.seen.length} replies within their budget (${this.seen.join('; ')}): the rest of the suite is not run, each request would cost the whole budget`;
    throw new TargetGone(
      cause,
      'replies that end within the request budget',
      this.seen.join('; '),
      undefined,
      {
        sharedCause: cause,
      },
    );
  }

  strike(what: string): void {
    this.seen.push(what);
  }
}

export interface SendOptions {
  /** false: send no key at all (the missing-key rule). Default true. */
  readonly withKey?: boolean;
  /** Send this value as x-api-key instead of the run's key (the wrong-key rule). */
  readonly apiKey?: string;
  /** `spec`: only the spec's `service-version` header, no `anthropic-version`. Default both. */
  readonly versionHeaders?: 'both' | 'spec';
  /** Aborts this request too (a check's budget). */
  readonly signal?: AbortSignal;
}

export interface StreamOptions extends SendOptions {
  /** The client aborts the request right after the first frame for which this holds. */
  readonly abortAfter?: (frame: SseFrame) => boolean;
}

/** The request could not be completed at all: no connection, timeout, reset before the headers. */
export class RequestFailed extends CheckFailure {}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** 429 and 529 (overloaded) are transient on the real API: wait and send again, as its SDKs do. */
const RETRY_STATUSES = new Set([429, 529]);
const MAX_RETRIES = 2;
const MAX_RETRY_WAIT_MS = 10_000;

function requestHeaders(client: ServiceClient, options: SendOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    // The spec names the version header `service-version`; the real API names it
    // `anthropic-version` and requires it. Both carry the spec's value.
    'service-version': '2023-06-01',
  };
  if (options.versionHeaders !== 'spec') headers['anthropic-version'] = '2023-06-01';
  if (options.withKey ?? true) headers['x-api-key'] = options.apiKey ?? client.apiKey;
  return headers;
}

function headerMap(headers: Headers): HeaderMap {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return 'no reply within the request budget';
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

/** Node's fetch refuses some ports outright (its "bad port" list): a usage error, not a target fault. */
function badPort(e: unknown, url: string): UsageError | undefined {
  const cause = (e as { cause?: unknown })?.cause;
  if (!(cause instanceof Error) || cause.message !== 'bad port') return undefined;
  const port = new URL(url).port;
  return new UsageError(
    `port ${port} of ${url} is on the list of ports Node's fetch refuses to connect to (fetch failed: bad port); serve the messages service on another port`,
  );
}

async function post(
  client: ServiceClient,
  body: string,
  options: SendOptions,
  controller: AbortController,
  budget: AbortSignal,
): Promise<Response> {
  client.runaway?.check();
  const url = messagesEndpoint(client.baseUrl);
  const signals = [client.signal, controller.signal, budget];
  if (options.signal) signals.push(options.signal);
  const signal = AbortSignal.any(signals);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: requestHeaders(client, options),
        body,
        signal,
      });
    } catch (e) {
      const usage = badPort(e, url);
      if (usage) throw usage;
      throw new RequestFailed(`POST ${url} failed: ${describeError(e)}`);
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

/** Read a body to the end, within the size cap. `onChunk` may stop the reading by returning true. */
async function readBody(
  response: Response,
  onChunk: (chunk: Uint8Array) => boolean,
  maxBytes = MAX_BODY_BYTES,
): Promise<{ stopped: boolean; readError: string | undefined }> {
  if (!response.body) return { stopped: false, readError: undefined };
  const reader = response.body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { stopped: false, readError: undefined };
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel();
        return { stopped: false, readError: `body exceeded ${maxBytes} bytes and was cut` };
      }
      if (onChunk(value)) {
        // Cancelling the body closes the connection at once, as a client that stops reading does.
        await reader.cancel();
        return { stopped: true, readError: undefined };
      }
    }
  } catch (e) {
    return { stopped: false, readError: describeError(e) };
  }
}

/** POST a body (any text, JSON or not) and read the whole reply. */
export async function sendBuffered(
  client: ServiceClient,
  body: string,
  options: SendOptions = {},
): Promise<BufferedReply> {
  const controller = new AbortController();
  const budget = AbortSignal.timeout(client.requestTimeoutMs);
  const response = await post(client, body, options, controller, budget).catch((e: unknown) => {
    if (budget.aborted)
      client.runaway?.strike(`a buffered reply sent no headers within ${client.requestTimeoutMs} ms`);
    throw e;
  });
  const chunks: Uint8Array[] = [];
  const { readError } = await readBody(
    response,
    (chunk) => {
      chunks.push(chunk);
      return false;
    },
    client.maxBodyBytes,
  );
  if (readError !== undefined) {
    noteRunaway(client, budget, readError, 'a buffered reply');
    throw new RequestFailed(`reading the reply body failed: ${readError}`);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  let jsonError: string | undefined;
  try {
    json = JSON.parse(text);
  } catch (e) {
    jsonError = (e as Error).message;
  }
  return { status: response.status, headers: headerMap(response.headers), text, json, jsonError };
}

/** POST a `stream: true` body and decode the reply's SSE frames as they arrive. */
export async function sendStreamed(
  client: ServiceClient,
  body: string,
  options: StreamOptions = {},
): Promise<StreamedReply> {
  const controller = new AbortController();
  const budget = AbortSignal.timeout(client.requestTimeoutMs);
  const response = await post(client, body, options, controller, budget).catch((e: unknown) => {
    if (budget.aborted)
      client.runaway?.strike(`a stream sent no headers within ${client.requestTimeoutMs} ms`);
    throw e;
  });
  const headers = headerMap(response.headers);
  if (response.status !== 200) {
    const reply = await sendTextOf(response, client.maxBodyBytes);
    return { ...emptyStream(response.status, headers), text: reply.text, readError: reply.readError };
  }
  const frames: SseFrame[] = [];
  const frameTimesMs: number[] = [];
  const comments: StreamComment[] = [];
  const invalidLines: string[] = [];
  let abortNow = false;
  // Times are taken per chunk read: every frame completed by one read arrived together.
  let firstByteAt: number | undefined;
  let now = 0;
  const decoder = createFrameDecoder({
    onFrame(frame) {
      frames.push(frame);
      frameTimesMs.push(now);
      if (!abortNow && options.abortAfter?.(frame)) abortNow = true;
    },
    onComment(text) {
      comments.push({ text, atMs: now, afterFrames: frames.length });
    },
    onInvalidLine(line) {
      invalidLines.push(line);
    },
  });
  const { stopped, readError } = await readBody(
    response,
    (chunk) => {
      const at = performance.now();
      firstByteAt ??= at;
      now = Math.round((at - firstByteAt) * 10) / 10;
      decoder.feed(chunk);
      return abortNow;
    },
    client.maxBodyBytes,
  );
  if (stopped) controller.abort();
  if (readError !== undefined)
    noteRunaway(client, budget, readError, `a stream (${frames.length} frames read)`);
  const unterminated = stopped ? '' : decoder.end();
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

/** A reply that broke off because it ran past its budget (time or bytes) is a runaway. */
function noteRunaway(client: ServiceClient, budget: AbortSignal, readError: string, what: string): void {
  if (budget.aborted) client.runaway?.strike(`${what} did not end within ${client.requestTimeoutMs} ms`);
  else if (readError.startsWith('body exceeded')) client.runaway?.strike(`${what}: ${readError}`);
}

async function sendTextOf(
  response: Response,
  maxBytes?: number,
): Promise<{ text: string; readError: string | undefined }> {
  const chunks: Uint8Array[] = [];
  const { readError } = await readBody(
    response,
    (chunk) => {
      chunks.push(chunk);
      return false;
    },
    maxBytes,
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
