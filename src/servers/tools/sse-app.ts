import fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Implementation } from '../../protocol/mcp/index.js';
import { KEEP_ALIVE_MS, SESSION_HEADER, SESSION_QUERY_PARAM } from '../../protocol/mcp/index.js';
import { SseServerTransport } from '../../transports/sse-server.js';
import { createToolServerCore, type ToolServerCore } from './core.js';
import { REFERENCE_TOOLS } from './reference-tools.js';
import { serveSession } from './serve-session.js';
import type { McpToolDefinition } from './tool.js';

export const STREAM_PATH = '/sse';
export const MESSAGE_PATH = '/messages';
/** The largest POST body accepted, as the MCP SDK's SSE transport (4 MB). */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** How many closed session ids are remembered, to tell "closed" from "unknown" in a 400. */
const CLOSED_IDS_KEPT = 10_000;

export interface ToolServerOptions {
  /** Default REFERENCE_TOOLS. */
  readonly tools?: readonly McpToolDefinition[];
  readonly serverInfo?: Implementation;
  /** A comment frame on every stream this often; 0 turns it off. Default 15000 (spec "Limits"). */
  readonly keepAliveMs?: number;
  /** Default 4 MiB; a larger POST body is answered 413. */
  readonly bodyLimit?: number;
  /** Log lines (stderr in the CLI). */
  readonly log?: (line: string) => void;
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

  const app = fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? BODY_LIMIT_BYTES,
    // Open streams never end by themselves: close() must cut them.
    forceCloseConnections: true,
    // A HEAD /sse would otherwise run the stream handler and open a session nobody reads.
    exposeHeadRoutes: false,
  });

  // Bodies stay text: malformed JSON for a live session is answered on its stream with
  // -32700 (JSON-RPC), and a non-JSON content type is refused by the route with 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode ?? 500;
    // 415 (no parser) is the route's "not JSON" case, which answers 400.
    const shown = status === 415 ? 400 : status;
    void reply.code(shown).send({ error: error.message });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      error: `no route ${request.method} ${request.url.split('?')[0]}: the event stream is GET ${STREAM_PATH} and messages are POSTed to ${MESSAGE_PATH}?${SESSION_QUERY_PARAM}=<id>`,
    });
  });

  app.get(STREAM_PATH, (_request, reply) => {
    reply.hijack();
    const transport = new SseServerTransport({ response: reply.raw, messagePath: MESSAGE_PATH, keepAliveMs });
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
    const id = sessionIdOfRequest(request);
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

/** The session id from the query (`sessionId`) or else the `Mcp-Session-Id` header. */
function sessionIdOfRequest(request: FastifyRequest): string | { problem: string } {
  const query = request.query as Record<string, string | string[] | undefined>;
  const fromQuery = query[SESSION_QUERY_PARAM];
  const fromHeader = request.headers[SESSION_HEADER];
  const id = fromQuery ?? fromHeader;
  if (Array.isArray(id)) return { problem: `more than one session id was given (${id.join(', ')})` };
  if (id === undefined || id === '') {
    return {
      problem: `no session id: POST to the path of the endpoint event (${MESSAGE_PATH}?${SESSION_QUERY_PARAM}=<id>) or send header Mcp-Session-Id`,
    };
  }
  return id;
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
