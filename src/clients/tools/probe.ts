import type { Agent, IncomingMessage } from 'node:http';
import { clip } from '../../protocol/clip.js';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { classifyMessage, request } from '../../protocol/jsonrpc/index.js';
import {
  METHODS,
  PROBE_BUDGET_MS,
  PROBE_CAPTURE_MS,
  PROTOCOL_VERSION,
  resolveEndpoint,
  sessionIdOf,
  TOOL_SSE_EVENTS,
} from '../../protocol/mcp/index.js';
import { type SseFrame, SseLimitError } from '../../protocol/sse/index.js';
import {
  causeOf,
  createAgent,
  httpRequest,
  isEventStream,
  openEventStream,
  pumpFrames,
  readBody,
} from '../../transports/index.js';
import { VERSION } from '../../version.js';

export interface ProbeOptions {
  /** Everything, from the GET to the last POST, within this (spec "Limits": 5 s). */
  readonly budgetMs?: number;
  /** The stream is read for at most this long after it opens (spec "Limits": 3 s). */
  readonly captureMs?: number;
  readonly signal?: AbortSignal;
  /**
   * `--header`s: sent with the GET and, over SSE, with the POSTs only when the announced
   * endpoint has the stream's origin (a credential stays with the host it was meant for).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One frame of the captured stream, with its arrival time since the probe started. */
export interface ProbeFrame {
  readonly atMs: number;
  readonly event: string;
  readonly data: string;
}

/** What the probe saw; times are milliseconds since it started. */
export interface ProbeReport {
  readonly url: string;
  healthy: boolean;
  /** Why not healthy (the first problem met). */
  reason?: string;
  stream: { status?: number; contentType?: string; atMs?: number; error?: string };
  endpoint?: { data: string; url?: string; sessionId?: string; atMs: number; error?: string };
  post?: { status?: number; body?: string; atMs?: number; error?: string };
  reply?: { message: unknown; atMs: number };
  /** Status of the `notifications/initialized` POST sent after a successful reply. */
  initializedStatus?: number;
  /** The `--header`s were not sent with the POSTs: the endpoint is on another origin. */
  headersWithheld?: true;
  /** The frames captured (at most MAX_FRAMES), comments counted apart. */
  frames: ProbeFrame[];
  comments: number;
  durationMs: number;
}

const MAX_FRAMES = 50;
/** Characters of a frame's data (and of the endpoint event's) kept in the report. */
const MAX_DATA_KEPT = 4096;

const INITIALIZE_ID = 1;

/**
 * The health probe of an SSE tool server (spec "Limits": 5 s in all, 3 s of stream
 * capture): GET the stream, wait for the `endpoint` event, POST `initialize` to the
 * announced endpoint (200 and 202 both count as success), wait for the reply on the
 * stream, then POST `notifications/initialized`. Healthy means every step worked and the
 * reply is a successful initialize result. The capture window starts when the stream's
 * headers arrive and ends early once the reply is in; the budget bounds the whole probe,
 * the GET's connection included. The stream is always closed before this resolves.
 */
export async function probeToolServer(url: string, options: ProbeOptions = {}): Promise<ProbeReport> {
  const budgetMs = options.budgetMs ?? PROBE_BUDGET_MS;
  const captureMs = options.captureMs ?? PROBE_CAPTURE_MS;
  const started = performance.now();
  const now = () => Math.round(performance.now() - started);
  const report: ProbeReport = { url, healthy: false, stream: {}, frames: [], comments: 0, durationMs: 0 };
  const controller = new AbortController();
  const budget = setTimeout(() => controller.abort(new Error(`the ${budgetMs} ms budget ran out`)), budgetMs);
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const unhealthy = (reason: string) => {
    report.reason ??= reason;
  };
  const agent = createAgent(new URL(url));
  try {
    await probe(url, report, {
      signal: controller.signal,
      agent,
      captureMs,
      now,
      unhealthy,
      headers: options.headers ?? {},
    });
  } finally {
    agent.destroy();
    clearTimeout(budget);
    options.signal?.removeEventListener('abort', onOuterAbort);
    controller.abort();
    report.durationMs = now();
  }
  report.healthy = report.reason === undefined;
  return report;
}

interface ProbeRun {
  readonly signal: AbortSignal;
  readonly agent: Agent;
  readonly captureMs: number;
  readonly now: () => number;
  readonly unhealthy: (reason: string) => void;
  readonly headers: Readonly<Record<string, string>>;
}

async function probe(url: string, report: ProbeReport, run: ProbeRun): Promise<void> {
  const { signal, agent, captureMs, now, unhealthy, headers } = run;
  let response: IncomingMessage;
  try {
    response = await openEventStream(new URL(url), agent, signal, headers);
  } catch (e) {
    report.stream.error = causeOf(e);
    return unhealthy(`GET ${url} failed: ${abortReason(signal) ?? causeOf(e)}`);
  }
  const status = response.statusCode ?? 0;
  report.stream = { status, atMs: now() };
  const contentType = response.headers['content-type'];
  if (contentType !== undefined) report.stream.contentType = contentType;
  if (status !== 200) {
    const body = await readBody(response);
    report.stream.error = body;
    return unhealthy(`GET answered HTTP ${status}, expected 200: ${body}`);
  }
  if (!isEventStream(contentType)) {
    unhealthy(
      `GET answered content type ${JSON.stringify(report.stream.contentType)}, expected text/event-stream`,
    );
  }

  const capture = new AbortController();
  const stopCapture = (why: string) => capture.abort(new Error(why));
  const captureTimer = setTimeout(() => stopCapture(`capture window of ${captureMs} ms`), captureMs);
  signal.addEventListener('abort', () => stopCapture(abortReason(signal) ?? 'aborted'), { once: true });
  let endpointSeen: (endpoint: URL | undefined) => void = () => {};
  const endpoint = new Promise<URL | undefined>((resolve) => {
    endpointSeen = resolve;
  });
  let replySeen: () => void = () => {};
  const reply = new Promise<void>((resolve) => {
    replySeen = resolve;
  });

  const onFrame = (frame: SseFrame) => {
    const event = frame.event ?? TOOL_SSE_EVENTS.message;
    if (report.frames.length < MAX_FRAMES)
      report.frames.push({ atMs: now(), event, data: clip(frame.data, MAX_DATA_KEPT) });
    if (event === TOOL_SSE_EVENTS.endpoint && report.endpoint === undefined) {
      report.endpoint = { data: clip(frame.data, MAX_DATA_KEPT), atMs: now() };
      try {
        const resolved = resolveEndpoint(frame.data, url);
        report.endpoint.url = resolved.href;
        const session = sessionIdOf(resolved);
        if (session !== undefined) report.endpoint.sessionId = session;
        endpointSeen(resolved);
      } catch (e) {
        report.endpoint.error = causeOf(e);
        endpointSeen(undefined);
      }
      return;
    }
    if (event !== TOOL_SSE_EVENTS.message || report.reply !== undefined) return;
    const parsed = parseJsonBounded(frame.data);
    if (!parsed.ok) return;
    const value = parsed.value;
    const kind = classifyMessage(value);
    if ((kind.kind === 'success' || kind.kind === 'error') && kind.message.id === INITIALIZE_ID) {
      report.reply = { message: value, atMs: now() };
      replySeen();
    }
  };

  // Reading stops at the end of the capture window, or the budget's end, or the stream's, or
  // at a line or frame past the decoder's limits (a protocol failure, named in the report).
  const body = response;
  const reading = (async () => {
    try {
      await pumpFrames(body, { onFrame, onComment: () => report.comments++ }, capture.signal);
    } catch (e) {
      // The stream broke: what was seen is in the report.
      if (e instanceof SseLimitError) {
        report.stream.error = e.message;
        stopCapture(`the stream was closed: ${e.message}`);
        unhealthy(`the stream broke the protocol: ${e.message}`);
      }
    }
    endpointSeen(undefined);
    replySeen();
  })();

  try {
    const endpointUrl = await endpoint;
    if (endpointUrl === undefined) {
      if (report.endpoint?.error !== undefined) {
        return unhealthy(
          `the endpoint event's data ${JSON.stringify(report.endpoint.data)} is not a URL or path`,
        );
      }
      return unhealthy(
        `no \`endpoint\` event on the stream (${capture.signal.reason?.message ?? 'stream ended'})`,
      );
    }
    const withheld = endpointUrl.origin !== new URL(url).origin && Object.keys(headers).length > 0;
    if (withheld) report.headersWithheld = true;
    const postHeaders = withheld ? {} : headers;
    const posted = await post(
      endpointUrl,
      request(INITIALIZE_ID, METHODS.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'wirecheck-probe', version: VERSION },
      }),
      signal,
      agent,
      postHeaders,
    );
    report.post = { ...posted, atMs: now() };
    if (posted.error !== undefined) return unhealthy(`POST ${endpointUrl.href} failed: ${posted.error}`);
    if (posted.status !== 200 && posted.status !== 202) {
      return unhealthy(
        `POST ${endpointUrl.href} answered HTTP ${posted.status}, expected 202 or 200: ${posted.body}${withheld ? ` (the --header values were not sent: ${endpointUrl.origin} is not the stream's origin)` : ''}`,
      );
    }
    await reply;
    if (report.reply === undefined) {
      return unhealthy(
        `no reply to initialize on the stream (${capture.signal.reason?.message ?? 'stream ended'})`,
      );
    }
    const kind = classifyMessage(report.reply.message);
    if (kind.kind === 'error') {
      return unhealthy(
        `initialize was answered with JSON-RPC error ${kind.message.error.code}: ${kind.message.error.message}`,
      );
    }
    const initialized = await post(
      endpointUrl,
      { jsonrpc: '2.0', method: METHODS.initialized },
      signal,
      agent,
      postHeaders,
    );
    if (initialized.status !== undefined) report.initializedStatus = initialized.status;
  } finally {
    clearTimeout(captureTimer);
    stopCapture('probe finished');
    await reading;
  }
}

async function post(
  endpoint: URL,
  message: unknown,
  signal: AbortSignal,
  agent: Agent,
  headers: Readonly<Record<string, string>>,
): Promise<{ status?: number; body?: string; error?: string }> {
  try {
    const response = await httpRequest(endpoint, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(message),
      agent,
      signal,
    });
    return { status: response.statusCode ?? 0, body: await readBody(response, 200) };
  } catch (e) {
    return { error: abortReason(signal) ?? causeOf(e) };
  }
}

function abortReason(signal: AbortSignal): string | undefined {
  if (!signal.aborted) return undefined;
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
}
