import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Implementation } from '../../protocol/mcp/index.js';
import { KEEP_ALIVE_MS, SESSION_QUERY_PARAM } from '../../protocol/mcp/index.js';
import { SseServerTransport } from '../../transports/sse-server.js';
import { TransportClosedError } from '../../transports/transport.js';
import {
  BODY_BUDGET_FACTOR,
  BodyBudget,
  limitRequestTime,
  REQUEST_TIMEOUT_MS,
  RequestHolds,
} from '../http/body-budget.js';
import { BODY_LIMIT_BYTES } from '../http/body-limit.js';
import { type HostPolicyOptions, hostPolicy, hostRefusal, originRefusal } from '../http/host-guard.js';
import { checkOutboundQueue, describeOverflow, SESSION_QUEUE_LIMIT_BYTES } from '../http/outbound-queue.js';
import { requiredHeaderRefusal } from '../http/required-headers.js';
import { sessionIdOfRequest } from '../http/session-id.js';
import { createToolServerCore, type ToolServerCore } from './core.js';
import { REFERENCE_TOOLS } from './reference-tools.js';
import { serveSession } from './serve-session.js';
import type { McpToolDefinition } from './tool.js';

export { BODY_LIMIT_BYTES };

export const STREAM_PATH = '/sse';
export const MESSAGE_PATH = '/messages';
/** How many closed session ids are remembered, to tell "closed" from "unknown" in a 400. */
const CLOSED_IDS_KEPT = 10_000;

export interface ToolServerOptions extends HostPolicyOptions {
  /** Default REFERENCE_TOOLS. */
  readonly tools?: readonly McpToolDefinition[];
  readonly serverInfo?: Implementation;
  /** A comment frame on every stream this often; 0 turns it off. Default 15000 (spec "Limits"). */
  readonly keepAliveMs?: number;
  /**
   * Default 4 MiB; a larger POST body is answered 413. Bodies in flight at once are held to 4 x
   * this (BodyBudget): a POST past it is answered 503 before its body is read.
   */
  readonly bodyLimit?: number;
  /**
   * Ms a request may take to arrive whole, headers and body; past it Node answers 408 and
   * closes. Default REQUEST_TIMEOUT_MS (60 s). Internal: tests set it short.
   */
  readonly requestTimeoutMs?: number;
  /** Log lines (stderr in the CLI). */
  readonly log?: (line: string) => void;
  /**
   * Bytes a session's stream may hold for a client that stopped reading; past it the
   * session is dropped (default SESSION_QUEUE_LIMIT_BYTES, 16 MiB).
   */
  readonly sessionQueueLimit?: number;
}

export interface ToolServerApp {
  /** The fastify instance; it never listens by itself (see startToolServer). */
  readonly app: FastifyInstance;
  readonly core: ToolServerCore;
  /** Open SSE sessions (streams not yet closed). */
  sessionCount(): number;
}

/**
 * The reference tool server's SSE transport on fastify (MCP 2024-11-05 HTTP+SSE):
 * `GET /sse` opens a session whose first event is `endpoint`; `POST /messages?sessionId=`
 * (or header `Mcp-Session-Id`) is answered 202 and its reply goes out on that session's
 * stream only. A registry maps each session id to its own stream.
 */
export function buildToolServer(options: ToolServerOptions = {}): ToolServerApp {
  const log = options.log ?? (() => {});
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const queueLimit = options.sessionQueueLimit ?? SESSION_QUEUE_LIMIT_BYTES;
  const hosts = hostPolicy(options);
  const core = createToolServerCore({
    tools: options.tools ?? REFERENCE_TOOLS,
    log,
    ...(options.serverInfo === undefined ? {} : { serverInfo: options.serverInfo }),
  });
  const streams = new Map<string, SseServerTransport>();
  const closedIds = new Set<string>();
  const rememberClosed = (id: string): void => {
    closedIds.add(id);
    if (closedIds.size > CLOSED_IDS_KEPT) {
      const oldest = closedIds.values().next().value;
      if (oldest !== undefined) closedIds.delete(oldest);
    }
  };

  const bodyLimit = options.bodyLimit ?? BODY_LIMIT_BYTES;
  const holds = new RequestHolds(new BodyBudget(BODY_BUDGET_FACTOR * bodyLimit), bodyLimit);
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = fastify({
    logger: false,
    bodyLimit,
    // Open streams never end by themselves: close() must cut them.
    forceCloseConnections: true,
    // A HEAD /sse would otherwise run the stream handler and open a session nobody reads.
    exposeHeadRoutes: false,
    // Fastify's default is none: a POST whose body stalls would hold its connection for ever.
    requestTimeout,
  });
  limitRequestTime(app.server, requestTimeout);

  // Bodies stay text: malformed JSON for a live session is answered on its stream with
  // -32700 (JSON-RPC), and a non-JSON content type is refused by the route with 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // DNS rebinding and pages of other sites (MCP: servers validate Origin): refused before any route.
  app.addHook('onRequest', (request, reply, done) => {
    const refusal = hostRefusal(hosts, request.headers.host) ?? originRefusal(hosts, request.headers.origin);
    if (refusal !== undefined) return void reply.code(403).send({ error: refusal });
    const denied = requiredHeaderRefusal(options.requireHeaders, request.headers);
    if (denied !== undefined)
      return void reply.code(denied.status).headers(denied.headers).send({ error: denied.message });
    // Reserved before the body is read, given back once the answer ended.
    const busy = holds.reserve(request.raw, reply.raw);
    if (busy !== undefined) {
      // The body is never read: the connection ends with the answer.
      return void reply
        .code(503)
        .header('connection', 'close')
        .send({ error: `Service Unavailable: ${busy}` });
    }
    done();
  });

  // A chunked body takes from the budget as its bytes arrive; past it the error handler answers 503.
  app.addHook('preParsing', (request, _reply, payload, done) =>
    done(
      null,
      holds.metered(request.raw, payload, (why) =>
        Object.assign(new Error(`Service Unavailable: ${why}`), { statusCode: 503 }),
      ),
    ),
  );

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode ?? 500;
    // 415 (no parser) is the route's "not JSON" case, which answers 400.
    const shown = status === 415 ? 400 : status;
    // A 503 is the body budget's: the rest of that body is never read.
    if (shown === 503) void reply.header('connection', 'close');
    void reply.code(shown).send({ error: error.message });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      error: `no route ${request.method} ${request.url.split('?')[0]}: the event stream is GET ${STREAM_PATH} and messages are POSTed to ${MESSAGE_PATH}?${SESSION_QUERY_PARAM}=<id>`,
    });
  });

  app.get(STREAM_PATH, (_request, reply) => {
    reply.hijack();
    const transport = new BoundedSseTransport(reply.raw, queueLimit, log, MESSAGE_PATH, keepAliveMs);
    const id = transport.sessionId;
    streams.set(id, transport);
    serveSession(core, transport, {
      transport: 'sse',
      id,
      log,
      onClose: () => {
        streams.delete(id);
        rememberClosed(id);
      },
    });
    transport.start().catch((e: unknown) => {
      log(`session ${id}: the stream could not start: ${e instanceof Error ? e.message : String(e)}`);
      void transport.close();
    });
  });

  app.post(MESSAGE_PATH, (request, reply) => {
    const id = sessionIdOfRequest(request, MESSAGE_PATH);
    if (typeof id !== 'string') return badRequest(reply, id.problem);
    const transport = streams.get(id);
    if (transport === undefined) {
      return badRequest(
        reply,
        closedIds.has(id)
          ? `session ${id} is closed: its event stream ended; open a new session with GET ${STREAM_PATH}`
          : `unknown session ${id}: no event stream with this id is open; open one with GET ${STREAM_PATH}`,
      );
    }
    const type = request.headers['content-type'];
    if (!isJsonContentType(type)) {
      return badRequest(
        reply,
        `Content-Type must be application/json, got ${type === undefined ? 'none' : type}`,
      );
    }
    const body = typeof request.body === 'string' ? request.body : '';
    // The MCP SDK answers 202 with the text `Accepted` (the spec leaves the body "not shown").
    void reply.code(202).type('text/plain; charset=utf-8').send('Accepted');
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (e) {
      transport.receiveUnparsable(body, e instanceof Error ? e.message : String(e));
      return;
    }
    transport.receive(value);
  });

  // Streams end before the server stops, so every session is de-allocated.
  app.addHook('preClose', (done) => {
    for (const transport of [...streams.values()]) void transport.close();
    done();
  });

  return { app, core, sessionCount: () => streams.size };
}

/**
 * The SSE transport of one session, dropped when its client stops reading: a reply that
 * leaves more than `limit` bytes waiting for the client destroys the stream, which closes
 * the session (its in-flight calls are aborted) and frees what was queued.
 */
class BoundedSseTransport extends SseServerTransport {
  private dropped = false;

  constructor(
    private readonly raw: ServerResponse,
    private readonly limit: number,
    private readonly log: (line: string) => void,
    messagePath: string,
    keepAliveMs: number,
  ) {
    // Session ids are random UUIDs (crypto): a client cannot guess another's and inject into its stream.
    super({ response: raw, messagePath, keepAliveMs, sessionId: randomUUID() });
  }

  override send(message: unknown): Promise<void> {
    if (this.dropped) return Promise.reject(new TransportClosedError(`SSE session ${this.sessionId}`));
    const sent = super.send(message);
    checkOutboundQueue(this.raw, this.limit, (overflow) => {
      this.dropped = true;
      this.log(describeOverflow(this.sessionId, overflow));
    });
    return sent;
  }
}

function badRequest(reply: FastifyReply, error: string): void {
  void reply.code(400).send({ error });
}

function isJsonContentType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const semicolon = type.indexOf(';');
  const essence = (semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase();
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}
