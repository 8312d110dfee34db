import type { IncomingMessage } from 'node:http';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { classifyMessage, request } from '../../protocol/jsonrpc/index.js';
import { defaultRevisionFor, METHODS, PROBE_BUDGET_MS, PROBE_CAPTURE_MS } from '../../protocol/mcp/index.js';
import {
  mcpSessionIdSchema,
  mediaTypeOf,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../../protocol/mcp/streamable-http.js';
import {
  causeOf,
  createAgent,
  httpRequest,
  pumpFrames,
  readBody,
  readBounded,
  STREAMABLE_HTTP_POST_ACCEPT,
} from '../../transports/index.js';
import { VERSION } from '../../version.js';
import type { ProbeOptions } from './probe.js';

/** What the probe of a Streamable HTTP endpoint saw; times are ms since it started. */
export interface StreamableProbeReport {
  readonly url: string;
  healthy: boolean;
  reason?: string;
  post: { status?: number; contentType?: string; sessionId?: string; atMs?: number; error?: string };
  reply?: { message: unknown; atMs: number };
  initializedStatus?: number;
  deleteStatus?: number;
  durationMs: number;
}

/** Bytes of a JSON answer the probe reads (an initialize result is small). */
const MAX_ANSWER_BYTES = 1024 * 1024;
const INITIALIZE_ID = 1;

/**
 * The health probe of a Streamable HTTP tool server (MCP 2025-03-26 and later), within the
 * spec's probe budget (5 s in all, 3 s to read the answer): POST `initialize` with `Accept:
 * application/json, text/event-stream`, read its answer (one JSON body, or an event stream up
 * to the response), then POST `notifications/initialized` and DELETE the session, both with
 * the `Mcp-Session-Id` issued (when one was); `headers` go with every request. Healthy means a 200 answer of either kind
 * carrying a successful initialize result; the last two statuses are reported only.
 */
export async function probeStreamableHttpServer(
  url: string,
  options: ProbeOptions = {},
): Promise<StreamableProbeReport> {
  const budgetMs = options.budgetMs ?? PROBE_BUDGET_MS;
  const captureMs = options.captureMs ?? PROBE_CAPTURE_MS;
  const started = performance.now();
  const now = () => Math.round(performance.now() - started);
  const report: StreamableProbeReport = { url, healthy: false, post: {}, durationMs: 0 };
  const target = new URL(url);
  const agent = createAgent(target);
  const controller = new AbortController();
  const budget = setTimeout(() => controller.abort(new Error(`the ${budgetMs} ms budget ran out`)), budgetMs);
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const fail = (reason: string) => {
    report.reason ??= reason;
  };
  const given = options.headers ?? {};
  try {
    let response: IncomingMessage;
    try {
      response = await httpRequest(target, {
        method: 'POST',
        headers: {
          ...given,
          'content-type': STREAMABLE_HTTP_CONTENT_TYPES.json,
          accept: STREAMABLE_HTTP_POST_ACCEPT,
        },
        body: JSON.stringify(
          request(INITIALIZE_ID, METHODS.initialize, {
            protocolVersion: defaultRevisionFor('http'),
            capabilities: {},
            clientInfo: { name: 'wirecheck-probe', version: VERSION },
          }),
        ),
        agent,
        signal: controller.signal,
      });
    } catch (e) {
      report.post.error = causeOf(controller.signal.aborted ? controller.signal.reason : e);
      fail(`POST initialize failed: ${report.post.error}`);
      return report;
    }
    const status = response.statusCode ?? 0;
    const contentType = response.headers['content-type'];
    const rawId = response.headers[STREAMABLE_HTTP_HEADERS.sessionId];
    const sessionId = Array.isArray(rawId) ? rawId[0] : rawId;
    report.post = {
      status,
      atMs: now(),
      ...(contentType === undefined ? {} : { contentType }),
      ...(sessionId === undefined ? {} : { sessionId }),
    };
    if (sessionId !== undefined && !mcpSessionIdSchema.safeParse(sessionId).success) {
      fail(`the Mcp-Session-Id ${JSON.stringify(sessionId)} is not visible ASCII (0x21 to 0x7E)`);
    }
    const type = mediaTypeOf(contentType);
    if (status !== 200) {
      const body = await readBody(response);
      fail(`POST initialize answered HTTP ${status}, expected 200: ${body}`);
      return report;
    }
    // What the answer stream carried that could not be read, and whether it was still open at the capture's end.
    let unreadable: string | undefined;
    let captureRanOut = false;
    if (type === STREAMABLE_HTTP_CONTENT_TYPES.json) {
      const body = await readBounded(response, MAX_ANSWER_BYTES);
      if (body.over) {
        fail(
          `the JSON answer went on past the ${MAX_ANSWER_BYTES}-byte limit of the probe's read (an initialize result is small)`,
        );
        return report;
      }
      const parsed = parseJsonBounded(body.bytes.toString('utf8'));
      if (parsed.ok) report.reply = { message: parsed.value, atMs: now() };
      else fail(`the JSON answer cannot be read: ${parsed.message}`);
    } else if (type === STREAMABLE_HTTP_CONTENT_TYPES.eventStream) {
      const got = new AbortController();
      const capture = setTimeout(() => {
        captureRanOut = true;
        got.abort();
      }, captureMs);
      const stop = AbortSignal.any([got.signal, controller.signal]);
      try {
        await pumpFrames(
          response,
          {
            onFrame: (frame) => {
              if (report.reply !== undefined || frame.data === '') return;
              if (frame.event !== undefined && frame.event !== 'message') return;
              const parsed = parseJsonBounded(frame.data);
              if (!parsed.ok) unreadable ??= parsed.message;
              const value = parsed.ok ? parsed.value : undefined;
              if ((value as { id?: unknown } | undefined)?.id !== INITIALIZE_ID) return;
              report.reply = { message: value, atMs: now() };
              got.abort();
            },
          },
          stop,
        );
      } catch (e) {
        if (report.reply === undefined) fail(`the answer stream broke: ${causeOf(e)}`);
      } finally {
        clearTimeout(capture);
      }
    } else {
      response.destroy();
      fail(
        `POST initialize answered content type ${JSON.stringify(contentType)}, expected application/json or text/event-stream`,
      );
      return report;
    }
    if (report.reply === undefined) {
      const how = captureRanOut
        ? `no response to initialize within ${captureMs} ms`
        : 'the answer stream ended without a response to initialize';
      fail(unreadable === undefined ? how : `${how}; it carried an event that cannot be read: ${unreadable}`);
      return report;
    }
    const c = classifyMessage(report.reply.message);
    const version =
      c.kind === 'success' ? (c.message.result as { protocolVersion?: unknown }).protocolVersion : undefined;
    if (c.kind !== 'success' || typeof version !== 'string') {
      fail('the answer to initialize is not a successful initialize result');
      return report;
    }
    const session = {
      ...given,
      ...(sessionId === undefined ? {} : { [STREAMABLE_HTTP_HEADERS.sessionId]: sessionId }),
      [STREAMABLE_HTTP_HEADERS.protocolVersion]: version,
    };
    report.initializedStatus = await statusOf(target, 'POST', session, agent, controller.signal, {
      jsonrpc: '2.0',
      method: METHODS.initialized,
    });
    if (sessionId !== undefined) {
      report.deleteStatus = await statusOf(target, 'DELETE', session, agent, controller.signal);
    }
    report.healthy = report.reason === undefined;
    return report;
  } finally {
    clearTimeout(budget);
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
    agent.destroy();
    report.durationMs = now();
  }
}

async function statusOf(
  target: URL,
  method: 'POST' | 'DELETE',
  headers: Record<string, string>,
  agent: ReturnType<typeof createAgent>,
  signal: AbortSignal,
  body?: unknown,
): Promise<number | undefined> {
  try {
    const response = await httpRequest(target, {
      method,
      headers: {
        ...headers,
        ...(body === undefined
          ? {}
          : { 'content-type': STREAMABLE_HTTP_CONTENT_TYPES.json, accept: STREAMABLE_HTTP_POST_ACCEPT }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      agent,
      signal,
    });
    await readBody(response);
    return response.statusCode;
  } catch {
    return undefined;
  }
}

/** The probe's findings as lines for a person: one per step, then the verdict. */
export function formatStreamableProbeReport(report: StreamableProbeReport): string[] {
  const lines = [`probe ${report.url} (Streamable HTTP)`];
  const p = report.post;
  lines.push(
    p.status === undefined
      ? `POST initialize: failed (${p.error ?? 'unknown error'})`
      : `POST initialize: HTTP ${p.status}, content type ${p.contentType ?? '(none)'}, ${p.sessionId === undefined ? 'no Mcp-Session-Id' : `Mcp-Session-Id ${p.sessionId}`} (${p.atMs} ms)`,
  );
  if (report.reply !== undefined) {
    const text = JSON.stringify(report.reply.message);
    lines.push(`reply: ${text.length > 300 ? `${text.slice(0, 300)}...` : text} (${report.reply.atMs} ms)`);
  }
  if (report.initializedStatus !== undefined) {
    lines.push(`POST notifications/initialized: HTTP ${report.initializedStatus}`);
  }
  if (report.deleteStatus !== undefined) lines.push(`DELETE: HTTP ${report.deleteStatus}`);
  lines.push(
    report.healthy
      ? `healthy (${report.durationMs} ms)`
      : `unhealthy: ${report.reason ?? 'unknown reason'} (${report.durationMs} ms)`,
  );
  return lines;
}
