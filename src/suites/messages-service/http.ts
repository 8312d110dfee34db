import {
  type CertificateRefusal,
  certificateRefusalOf,
  certificateWords,
} from '../../harness/certificate-refusal.js';
import { CheckFailure, HarnessBug, NotExercised, TargetGone } from '../../harness/check.js';
import { UsageError } from '../../harness/errors.js';
import { clip } from '../../protocol/clip.js';
import { type GivenHeader, uncarriedInHeader } from '../../protocol/header-option.js';
import { HeldBytes } from '../../protocol/held-line.js';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { createFrameDecoder, type SseFrame } from '../../protocol/sse/index.js';
import { isSecretName, mergeSecrets, REDACTED, scrubSecrets } from '../../recording/redact.js';
import { errorEnding } from './frame-rules.js';
import type { BufferedReply, HeaderMap, StreamComment, StreamedReply } from './replies.js';
import { messagesEndpoint } from './target.js';

/** How the suite reaches the service: the endpoint, the key, and the suite's lifetime. */
export interface ServiceClient {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The `--header`s, sent with every request; credential-named ones not with a missing or wrong key. */
  readonly headers?: readonly GivenHeader[];
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
  /** `return`: a busy service's reply is returned (the probe's, to say so); by default it is ServiceBusy. */
  readonly busy?: 'throw' | 'return';
}

export interface StreamOptions extends SendOptions {
  /** The client aborts the request right after the first frame for which this holds. */
  readonly abortAfter?: (frame: SseFrame) => boolean;
  /**
   * `return`: a 200 stream still ended by rate_limit_error or overloaded_error after the
   * retries is returned, while a busy status stays ServiceBusy: its headers and the frames
   * before the error can be judged, as those of any stream an error event ended.
   */
  readonly busyStream?: 'throw' | 'return';
}

/** The request could not be completed at all: no connection, a reset before the headers (a reply past its budget is BudgetSpent). */
export class RequestFailed extends CheckFailure {}

/** TLS refused the service's certificate: it answered, but no request reached it (certificate-refusal.ts). */
export class CertificateRefused extends RequestFailed {
  constructor(
    message: string,
    readonly refusal: CertificateRefusal,
  ) {
    super(message);
  }
}

/**
 * The service was rate-limited or overloaded through the retries (429, 529, 503, or a stream
 * ended by rate_limit_error or overloaded_error): no rule is broken, and the check that sent
 * the request cannot judge it now.
 */
export class ServiceBusy extends NotExercised {}

/**
 * The reply did not end within wirecheck's own budget of one request (requestTimeoutMs):
 * the spec bounds no reply's time, so a slow service broke no rule, and the check that sent
 * the request cannot judge a reply wirecheck itself cut (its open block is no fault).
 */
export class BudgetSpent extends NotExercised {}

function budgetSpent(client: ServiceClient, what: string): BudgetSpent {
  return new BudgetSpent(
    `${what} did not end within wirecheck's budget of one request (${client.requestTimeoutMs} ms, requestTimeoutMs): the spec bounds no reply's time, so the reply wirecheck cut could not be judged`,
  );
}

/** Statuses of a service that cannot serve for now: the real API's 429 and 529, a gateway's 503. */
const BUSY_STATUSES: ReadonlySet<number> = new Set([429, 503, 529]);

/** `retried`: how the request was asked again before giving up, said in the message. */
function serviceBusy(what: string, retried: string): ServiceBusy {
  return new ServiceBusy(
    `the service answered ${what} (${retried}): it is rate-limited or overloaded, so this could not be judged now (run again later)`,
  );
}

function busyStatus(status: number, text: string): ServiceBusy {
  const retried = RETRY_STATUSES.has(status)
    ? `after ${MAX_RETRIES} retries`
    : 'not retried: wirecheck retries only 429 and 529';
  return serviceBusy(`HTTP ${status} ${clip(text, 200)}`, retried);
}

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

function requestHeaders(client: ServiceClient, options: SendOptions): Record<string, string> {
  // A request that tests a missing or wrong key must carry no other credential either.
  const keyTested = options.withKey === false || options.apiKey !== undefined;
  const headers: Record<string, string> = {};
  for (const h of client.headers ?? []) {
    if (keyTested && isSecretName(h.name)) continue;
    refuseHeaderValue(h.value, `--header ${h.name}`, 'user');
    headers[h.name] = h.value;
  }
  Object.assign(headers, {
    'content-type': 'application/json',
    // The spec names the version header `service-version`; the real API names it
    // `anthropic-version` and requires it. Both carry the spec's value.
    'service-version': '2023-06-01',
  });
  if (options.versionHeaders !== 'spec') headers['anthropic-version'] = '2023-06-01';
  if (options.withKey ?? true) {
    if (options.apiKey === undefined) {
      refuseHeaderValue(client.apiKey, 'the API key (sent as x-api-key)', 'user');
    } else refuseHeaderValue(options.apiKey, 'the x-api-key of a wrong-key check', 'own');
    headers['x-api-key'] = options.apiKey ?? client.apiKey;
  }
  return headers;
}

/** HTTP whitespace at either end, which fetch strips from a header value before sending it. */
const HEADER_VALUE_EDGES = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/**
 * Fetch would refuse this value only when the request is made, with an error that quotes it
 * (a secret) and that would read as the service's failure: it is refused first, by `what` it
 * is and never by its value, as the user's mistake or as wirecheck's own.
 */
function refuseHeaderValue(value: string, what: string, whose: 'user' | 'own'): void {
  const bad = uncarriedInHeader(value.replace(HEADER_VALUE_EDGES, ''));
  if (bad === undefined) return;
  const problem = `${what} holds ${bad.code}, which a header value cannot carry (a header value may hold a tab and U+0020..U+00FF except U+007F; the value is not shown, it may be a secret)`;
  if (whose === 'own') throw new HarnessBug(`wirecheck built a request it cannot send: ${problem}`);
  throw new UsageError(`${problem}: no request was sent`);
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
  const wait = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : backoffMs(attempt);
  return Math.min(wait, MAX_RETRY_WAIT_MS);
}

function backoffMs(attempt: number): number {
  return 500 * 2 ** attempt;
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
  const headers = requestHeaders(client, options);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers, body, signal });
    } catch (e) {
      const usage = badPort(e, url);
      if (usage) throw usage;
      if (!signal.aborted && !isNetworkFailure(e)) throw notSent(e, url, headers);
      const refused = certificateRefusalOf(e);
      if (refused !== undefined)
        throw new CertificateRefused(
          `POST ${url} failed: ${certificateWords(new URL(url).origin, refused)}`,
          refused,
        );
      throw new RequestFailed(`POST ${url} failed: ${describeError(e, client.requestTimeoutMs)}`);
    }
    if (!RETRY_STATUSES.has(response.status) || attempt >= MAX_RETRIES) return response;
    // A body that broke off is nothing to judge: this reply is dropped and the request sent again.
    await response.body?.cancel().catch(() => undefined);
    await pause(retryWaitMs(response.headers, attempt), signal);
  }
}

/**
 * Whether fetch failed on the way to the service or back (undici's `fetch failed` carries the
 * socket's error as its cause; an abort or a timeout is a DOMException), rather than refusing
 * the request wirecheck built: an invalid argument (UND_ERR_INVALID_ARG) is the latter too.
 */
function isNetworkFailure(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return true;
  const cause = e.cause;
  return cause instanceof Error && (cause as { code?: unknown }).code !== 'UND_ERR_INVALID_ARG';
}

/** Fetch refused the request wirecheck built: a bug of wirecheck, told without the values fetch quotes. */
function notSent(e: unknown, url: string, headers: Record<string, string>): HarnessBug {
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const unquoted = text.replace(/"[\s\S]*"/, `"${REDACTED}"`);
  const shown = scrubSecrets(unquoted, mergeSecrets(Object.values(headers)));
  return new HarnessBug(
    `POST ${url} was not sent: fetch refused the request wirecheck built (${clip(shown, 300)})`,
  );
}

/** Wait `ms`, or less when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
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

/**
 * Read a body to the end, within the size cap and the request's time budget (the fetch
 * signal). `onChunk` may stop the reading by returning true, or by returning a string: why
 * the reply broke a reading limit (the body is then cancelled and that is the readError).
 * Only the read itself can break on the service: an error `onChunk` throws is wirecheck's
 * own, and leaves (the body cancelled) as it was thrown, never as the service's readError.
 */
async function readBody(
  response: Response,
  onChunk: (chunk: Uint8Array) => boolean | string,
  limits: { budgetMs?: number; maxBytes?: number } = {},
): Promise<BodyRead> {
  const maxBytes = limits.maxBytes ?? MAX_BODY_BYTES;
  if (!response.body) return { stopped: false, readError: undefined };
  const reader = response.body.getReader();
  // Reading stops here either way: a body that broke off meanwhile changes nothing.
  const cancel = () => reader.cancel().catch(() => undefined);
  let bytes = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (e) {
      return { stopped: false, readError: describeError(e, limits.budgetMs), broke: true };
    }
    if (next.done) return { stopped: false, readError: undefined };
    bytes += next.value.byteLength;
    if (bytes > maxBytes) {
      await cancel();
      return {
        stopped: false,
        readError: `the body went past the ${maxBytes}-byte limit of one reply (maxBodyBytes, default MAX_BODY_BYTES) and was cut off`,
        overBytes: true,
      };
    }
    let verdict: boolean | string;
    try {
      verdict = onChunk(next.value);
    } catch (e) {
      await cancel();
      throw e;
    }
    if (typeof verdict === 'string') {
      await cancel();
      return { stopped: false, readError: verdict };
    }
    if (verdict) {
      // Cancelling the body closes the connection at once, as a client that stops reading does.
      await cancel();
      return { stopped: true, readError: undefined };
    }
  }
}

interface BodyRead {
  readonly stopped: boolean;
  readonly readError: string | undefined;
  /** The body went past the byte cap. */
  readonly overBytes?: boolean;
  /** The read itself failed (a reset, an abort), rather than stopping at a limit of wirecheck's. */
  readonly broke?: boolean;
}

/** The body broke off because the request's budget ran out, not because the service ended it. */
function cutByBudget(read: BodyRead, budget: AbortSignal): boolean {
  return read.broke === true && budget.aborted;
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
    if (!budget.aborted || !(e instanceof RequestFailed)) throw e;
    client.runaway?.strike(`a buffered reply sent no headers within ${client.requestTimeoutMs} ms`);
    throw budgetSpent(client, 'a buffered reply (no headers arrived)');
  });
  const held = new HeldBytes();
  const read = await readBody(
    response,
    (chunk) => {
      held.add(chunk, false);
      return false;
    },
    bodyLimits(client),
  );
  if (read.readError !== undefined) {
    noteRunaway(client, budget, read, 'a buffered reply');
    if (cutByBudget(read, budget)) throw budgetSpent(client, `a buffered reply (HTTP ${response.status})`);
    throw new RequestFailed(`reading the reply body failed: ${read.readError}`);
  }
  const text = held.text();
  // Nesting is bounded before anything walks the value (schemas, comparisons, reports).
  const parsed = parseJsonBounded(text, { maxLength: client.maxBodyBytes ?? MAX_BODY_BYTES });
  const json = parsed.ok ? parsed.value : undefined;
  const jsonError = parsed.ok ? undefined : parsed.message;
  if (BUSY_STATUSES.has(response.status) && options.busy !== 'return') {
    throw busyStatus(response.status, text);
  }
  return { status: response.status, headers: headerMap(response.headers), text, json, jsonError };
}

/**
 * The error types of an `error` stream event that are transient on the real API, as
 * statuses 429 and 529 are: the stream is asked again, within the same number of retries.
 */
export const RETRY_ERROR_EVENTS: ReadonlySet<string> = new Set(['rate_limit_error', 'overloaded_error']);

/** POST a `stream: true` body and decode the reply's SSE frames as they arrive. */
export async function sendStreamed(
  client: ServiceClient,
  body: string,
  options: StreamOptions = {},
): Promise<StreamedReply> {
  for (let attempt = 0; ; attempt++) {
    const reply = await sendStreamedOnce(client, body, options);
    if (BUSY_STATUSES.has(reply.status) && options.busy !== 'return') {
      throw busyStatus(reply.status, reply.text);
    }
    const ending = reply.aborted ? undefined : errorEnding(reply.frames);
    const transient = ending !== undefined && RETRY_ERROR_EVENTS.has(ending.type);
    const returned = options.busy === 'return' || options.busyStream === 'return';
    if (transient && attempt >= MAX_RETRIES && !returned) {
      throw serviceBusy(
        `a stream ended by an error event of type ${ending.type}`,
        `after ${MAX_RETRIES} retries, as for a 429 or 529`,
      );
    }
    if (!transient || attempt >= MAX_RETRIES) return reply;
    const signal = options.signal ? AbortSignal.any([client.signal, options.signal]) : client.signal;
    if (signal.aborted) return reply;
    await pause(backoffMs(attempt), signal);
  }
}

async function sendStreamedOnce(
  client: ServiceClient,
  body: string,
  options: StreamOptions,
): Promise<StreamedReply> {
  const controller = new AbortController();
  const budget = AbortSignal.timeout(client.requestTimeoutMs);
  const response = await post(client, body, options, controller, budget).catch((e: unknown) => {
    if (!budget.aborted || !(e instanceof RequestFailed)) throw e;
    client.runaway?.strike(`a stream sent no headers within ${client.requestTimeoutMs} ms`);
    throw budgetSpent(client, 'a stream (no headers arrived)');
  });
  const headers = headerMap(response.headers);
  if (response.status !== 200) {
    const reply = await sendTextOf(response, bodyLimits(client));
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
  const read = await readBody(
    response,
    (chunk) => {
      const at = performance.now();
      firstByteAt ??= at;
      now = Math.round((at - firstByteAt) * 10) / 10;
      decoder.feed(chunk);
      return overLimit ?? abortNow;
    },
    bodyLimits(client),
  );
  const { stopped, readError } = read;
  if (readError !== undefined) noteRunaway(client, budget, read, `a stream (${frames.length} frames read)`);
  if (cutByBudget(read, budget)) throw budgetSpent(client, `a stream (${frames.length} frames read)`);
  if (stopped) controller.abort();
  // Past a limit of wirecheck's the service had not ended the stream: what it had left half
  // sent is wirecheck's cut, no unclosed frame of the service's.
  const cutByWirecheck = overLimit ?? (read.overBytes === true ? readError : undefined);
  const unterminated = stopped || cutByWirecheck !== undefined ? '' : decoder.end();
  return {
    status: response.status,
    headers,
    frames,
    unterminated,
    invalidLines,
    text: '',
    aborted: stopped,
    readError,
    ...(cutByWirecheck === undefined ? {} : { cutByWirecheck }),
    frameTimesMs,
    comments,
  };
}

function bodyLimits(client: ServiceClient): { budgetMs: number; maxBytes: number } {
  return { budgetMs: client.requestTimeoutMs, maxBytes: client.maxBodyBytes ?? MAX_BODY_BYTES };
}

/** A reply that broke off because it ran past its budget (time or bytes) is a runaway. */
function noteRunaway(client: ServiceClient, budget: AbortSignal, read: BodyRead, what: string): void {
  if (budget.aborted) client.runaway?.strike(`${what} did not end within ${client.requestTimeoutMs} ms`);
  else if (read.overBytes === true) client.runaway?.strike(`${what}: ${read.readError}`);
}

async function sendTextOf(
  response: Response,
  limits: { budgetMs?: number; maxBytes?: number },
): Promise<{ text: string; readError: string | undefined }> {
  const held = new HeldBytes();
  const { readError } = await readBody(
    response,
    (chunk) => {
      held.add(chunk, false);
      return false;
    },
    limits,
  );
  return { text: held.text(), readError };
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
