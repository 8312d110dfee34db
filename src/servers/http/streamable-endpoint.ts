import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, JSONRPC_ERRORS, type JsonRpcResponse } from '../../protocol/jsonrpc/index.js';
import {
  acceptsMediaType,
  BATCHES_REMOVED_IN,
  bodyHasInitialize,
  bodyHasRequest,
  mcpSessionIdSchema,
  mediaTypeOf,
  PRIMING_EVENT_SINCE,
  revisionAtLeast,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_DEFAULT_PATH,
  STREAMABLE_HTTP_HEADERS,
} from '../../protocol/mcp/index.js';
import { BODY_BUDGET_FACTOR, BodyBudget, BodyHold, declaredOverLimit } from './body-budget.js';
import { type HostPolicyOptions, hostPolicy, hostRefusal, originRefusal } from './host-guard.js';
import { checkOutboundQueue, describeOverflow, SESSION_QUEUE_LIMIT_BYTES } from './outbound-queue.js';
import { eventIdOf, parseEventId, ReplayBudget, ReplayLog } from './replay-log.js';
import { requiredHeaderRefusal } from './required-headers.js';

/** What one message (or batch) of a session is answered with: a reply, nothing, or a promise of one. */
export type SessionOutcome =
  | JsonRpcResponse
  | JsonRpcResponse[]
  | undefined
  | Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>;

/** The application side of one session: the tool server core's session, or a mock's. */
export interface StreamableSessionApp {
  /** Answer one parsed POST body (a message, or a batch where the revision allows it). Never throws. */
  handle(value: unknown): SessionOutcome;
  /** The session ended (DELETE, expiry, shutdown): abort what runs. */
  close(reason: string): void;
}

export interface StreamableEndpointOptions extends HostPolicyOptions {
  /** Called for an `initialize` POST without a session id: the new session's application side. */
  openSession(id: string): StreamableSessionApp;
  /** The protocol revisions served; an `MCP-Protocol-Version` header naming another is answered 400. */
  readonly protocolVersions: readonly string[];
  /** The endpoint's path (default `/mcp`); other paths are 404. */
  readonly path?: string;
  /** How a POST holding requests is answered when the client accepts both (default `sse`, as the SDK). */
  readonly answer?: 'sse' | 'json';
  /**
   * Largest POST body (default 4 MiB, as the SDK); larger is 413. Bodies in flight at once are
   * held to 4 x this (BodyBudget): a POST past it is answered 503 before its body is read.
   */
  readonly bodyLimit?: number;
  /** Bytes one stream may hold for a client that stopped reading; past it the stream is cut (16 MiB). */
  readonly sessionQueueLimit?: number;
  /** Sessions open at once (default 10,000); an initialize past it is 503. */
  readonly maxSessions?: number;
  /** A session with no request, stream or call for this long is ended (default 30 min; 0: never). */
  readonly sessionIdleMs?: number;
  /** Bytes of SSE events kept per session for Last-Event-ID (default 1 MiB; 0: no resumption). */
  readonly replayLimitBytes?: number;
  /**
   * Bytes of SSE events kept for Last-Event-ID by all sessions together (default 64 MiB); past it the
   * largest sessions' oldest events are dropped first.
   */
  readonly replayBudgetBytes?: number;
  /** A comment frame on the standalone GET stream this often (default 15000; 0: none). */
  readonly keepAliveMs?: number;
  readonly log?: (line: string) => void;
}

/** One Streamable HTTP endpoint on node:http requests: POST, GET, DELETE on one path. */
export interface StreamableEndpoint {
  /** Serve one request (any path: other paths are answered 404). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  sessionCount(): number;
  /**
   * Send a server message (a notification or a request) on the session's standalone GET stream.
   * False when the session has no such stream open (the message is dropped, as the revision allows).
   */
  notify(sessionId: string, message: unknown): boolean;
  /** Bytes of events kept for resumption: one session's (0 for one there is not), or all sessions'. */
  replayBytes(sessionId?: string): number;
  /** End one session as a DELETE would. False when there was none. */
  endSession(sessionId: string, reason?: string): boolean;
  /** End every session and stream (server shutdown). */
  close(reason?: string): void;
}

export const STREAMABLE_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
export const MAX_STREAMABLE_SESSIONS = 10_000;
export const STREAMABLE_SESSION_IDLE_MS = 30 * 60 * 1000;
export const REPLAY_LIMIT_BYTES = 1024 * 1024;
/** 10,000 sessions of 1 MiB each would be 10 GiB: every session's events together stay within this. */
export const REPLAY_BUDGET_BYTES = 64 * 1024 * 1024;
const KEEP_ALIVE_MS = 15_000;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** An SSE stream of a session: a POST's answer or the standalone GET stream. */
interface Stream {
  readonly no: number;
  seq: number;
  /** The connection writing it, undefined once the client went away (events are then only logged). */
  res: ServerResponse | undefined;
  /** A POST stream ends after its last reply; the standalone stream stays. */
  readonly standalone: boolean;
  /** POST streams: replies still to come. */
  pending: number;
}

interface Session {
  readonly id: string;
  readonly app: StreamableSessionApp;
  /** The revision the initialize result named. */
  version: string | undefined;
  lastActive: number;
  inFlight: number;
  nextStream: number;
  readonly streams: Map<number, Stream>;
  standalone: Stream | undefined;
  readonly replay: ReplayLog;
  keepAlive: NodeJS.Timeout | undefined;
}

/**
 * The server side of MCP's Streamable HTTP transport (2025-03-26 and later), bounded: body size,
 * sessions, the bytes a slow reader may leave queued per stream, the events kept for resumption.
 *
 * - POST: one JSON-RPC message (a batch too, before 2025-06-18). Only notifications and responses:
 *   202 with no body. Requests: one `application/json` answer or an event stream that carries every
 *   response and ends. `initialize` without a session id opens a session; its answer carries
 *   `Mcp-Session-Id`. Any other POST without the header is 400, with an id no session has 404.
 * - GET: the session's standalone stream (one at a time: a second is 409); with `Last-Event-ID`, the
 *   events of that one stream after it, then the stream goes on where it was.
 * - DELETE: ends the session (200); its id is 404 from then on.
 * - Host and Origin are checked first (403), as the SSE server does (DNS rebinding).
 */
export function createStreamableEndpoint(options: StreamableEndpointOptions): StreamableEndpoint {
  const path = options.path ?? STREAMABLE_HTTP_DEFAULT_PATH;
  const preferred = options.answer ?? 'sse';
  const bodyLimit = options.bodyLimit ?? STREAMABLE_BODY_LIMIT_BYTES;
  const bodies = new BodyBudget(BODY_BUDGET_FACTOR * bodyLimit);
  const queueLimit = options.sessionQueueLimit ?? SESSION_QUEUE_LIMIT_BYTES;
  const maxSessions = options.maxSessions ?? MAX_STREAMABLE_SESSIONS;
  const idleMs = options.sessionIdleMs ?? STREAMABLE_SESSION_IDLE_MS;
  const replayLimit = options.replayLimitBytes ?? REPLAY_LIMIT_BYTES;
  const replayBudget = new ReplayBudget(options.replayBudgetBytes ?? REPLAY_BUDGET_BYTES);
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const supported = new Set(options.protocolVersions);
  const log = options.log ?? (() => {});
  const hosts = hostPolicy(options);
  const sessions = new Map<string, Session>();

  const sweep =
    idleMs > 0
      ? setInterval(
          () => {
            const now = performance.now();
            for (const s of [...sessions.values()]) {
              if (s.inFlight > 0 || [...s.streams.values()].some((st) => st.res !== undefined)) continue;
              if (now - s.lastActive > idleMs) end(s, `idle for over ${idleMs} ms`);
            }
          },
          Math.min(idleMs, 60_000),
        )
      : undefined;
  sweep?.unref();

  function end(session: Session, reason: string): void {
    if (!sessions.delete(session.id)) return;
    clearInterval(session.keepAlive);
    for (const stream of session.streams.values()) stream.res?.end();
    session.streams.clear();
    session.replay.clear();
    session.app.close(reason);
    log(`session ${session.id} ended: ${reason}`);
  }

  function writeFrame(session: Session, stream: Stream, frame: string): void {
    const res = stream.res;
    if (res === undefined || res.destroyed) return;
    res.write(frame);
    checkOutboundQueue(res, queueLimit, (overflow) => {
      log(describeOverflow(session.id, overflow).replace('the session is dropped', 'the stream is cut'));
    });
  }

  /** One `message` event with an id, logged for resumption, written when the stream is connected. */
  function sendEvent(session: Session, stream: Stream, message: unknown): void {
    stream.seq += 1;
    const id = eventIdOf(stream.no, stream.seq);
    const frame = `id: ${id}\nevent: message\ndata: ${serialize(message)}\n\n`;
    session.replay.add({ stream: stream.no, seq: stream.seq, id, frame });
    writeFrame(session, stream, frame);
  }

  function openStream(session: Session, res: ServerResponse | undefined, standalone: boolean): Stream {
    session.nextStream += 1;
    const stream: Stream = { no: session.nextStream, seq: 0, res, standalone, pending: 0 };
    session.streams.set(stream.no, stream);
    return stream;
  }

  /** The client went away from a stream: its events are still logged; the session stays. */
  function detachOnClose(session: Session, stream: Stream, res: ServerResponse): void {
    res.on('close', () => {
      if (stream.res !== res) return;
      stream.res = undefined;
      session.lastActive = performance.now();
      if (stream.standalone && session.standalone === stream) clearInterval(session.keepAlive);
    });
  }

  /**
   * A POST stream whose last reply was written ends. When its connection takes the whole of it, the
   * client has every event and nothing is left to resume, so the stream and its events are forgotten
   * (kept, every session held its finished answers for its whole life: 1,000 idle sessions with one
   * 1 MB echo each were 1.1 GB). A connection that breaks first leaves them for Last-Event-ID.
   */
  function finishPostStream(session: Session, stream: Stream): void {
    if (stream.pending > 0) return;
    const res = stream.res;
    stream.res = undefined;
    if (res === undefined || res.destroyed) return;
    res.once('finish', () => {
      if (stream.res !== undefined) return;
      session.replay.endStream(stream.no, stream.seq);
      session.streams.delete(stream.no);
    });
    res.end();
  }

  function deliver(session: Session, stream: Stream, reply: JsonRpcResponse | JsonRpcResponse[] | undefined) {
    if (reply !== undefined) {
      for (const r of Array.isArray(reply) ? reply : [reply]) sendEvent(session, stream, r);
    }
    stream.pending -= 1;
    finishPostStream(session, stream);
  }

  function post(req: IncomingMessage, res: ServerResponse, text: string): undefined {
    const accept = req.headers.accept;
    const json = acceptsMediaType(accept, STREAMABLE_HTTP_CONTENT_TYPES.json);
    const sse = acceptsMediaType(accept, STREAMABLE_HTTP_CONTENT_TYPES.eventStream);
    if (!json && !sse) {
      return refuse(
        res,
        406,
        `Not Acceptable: a POST must accept application/json and text/event-stream (Accept: ${accept ?? 'none'})`,
      );
    }
    const type = mediaTypeOf(req.headers['content-type']);
    if (type !== 'application/json') {
      return refuse(
        res,
        415,
        `Unsupported Media Type: Content-Type must be application/json, got ${type ?? 'none'}`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return answerJson(
        res,
        400,
        errorResponse(
          null,
          JSONRPC_ERRORS.parseError,
          `Parse error: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
    }
    const id = sessionHeader(req);
    if (typeof id === 'object') return refuse(res, 400, id.problem);
    let session: Session | undefined;
    const initializing = id === undefined && bodyHasInitialize(value);
    if (initializing) {
      if (Array.isArray(value)) {
        return refuse(
          res,
          400,
          'Invalid Request: initialize must be sent alone, not in a batch',
          JSONRPC_ERRORS.invalidRequest,
        );
      }
      if (sessions.size >= maxSessions) {
        res.setHeader('retry-after', '1');
        return refuse(
          res,
          503,
          `Service Unavailable: ${maxSessions} sessions are open, the most this server keeps`,
        );
      }
    } else {
      if (id === undefined) {
        return refuse(
          res,
          400,
          `Bad Request: the ${STREAMABLE_HTTP_HEADERS.sessionId} header is required (send the id the initialize answer carried)`,
        );
      }
      session = sessions.get(id);
      if (session === undefined) return notFound(res, id);
      const versionProblem = headerVersionProblem(req);
      if (versionProblem !== undefined) return refuse(res, 400, versionProblem);
      if (Array.isArray(value) && revisionAtLeast(requestVersion(req, session), BATCHES_REMOVED_IN)) {
        return refuse(
          res,
          400,
          `Invalid Request: a batch (JSON array) is not allowed in protocol revision ${requestVersion(req, session)}: batching was removed in ${BATCHES_REMOVED_IN}`,
          JSONRPC_ERRORS.invalidRequest,
        );
      }
      session.lastActive = performance.now();
    }
    if (session === undefined) {
      const newId = randomUUID();
      session = {
        id: newId,
        app: options.openSession(newId),
        version: undefined,
        lastActive: performance.now(),
        inFlight: 0,
        nextStream: 0,
        streams: new Map(),
        standalone: undefined,
        replay: new ReplayLog(replayLimit, replayBudget),
        keepAlive: undefined,
      };
      sessions.set(newId, session);
    }
    const current = session;
    const outcome = current.app.handle(value);
    if (!bodyHasRequest(value)) {
      if (outcome === undefined || outcome instanceof Promise) {
        res.writeHead(202).end();
        return undefined;
      }
      // Something that is not a request was answered (an invalid message): refused with its error.
      return answerJson(res, 400, outcome);
    }
    const useSse = (preferred === 'sse' && sse) || !json;
    const headers: Record<string, string> = {};
    if (initializing) headers[STREAMABLE_HTTP_HEADERS.sessionId] = current.id;
    if (outcome instanceof Promise) {
      current.inFlight += 1;
      const settled = outcome.finally(() => {
        current.inFlight -= 1;
        current.lastActive = performance.now();
      });
      if (initializing) void settled.then((reply) => noteInitialize(current, reply));
      if (!useSse) {
        void settled.then((reply) => {
          if (!res.destroyed) answerJson(res, 200, reply ?? [], headers);
        });
        return;
      }
      res.writeHead(200, { ...SSE_HEADERS, ...headers });
      const stream = openStream(current, res, false);
      stream.pending = 1;
      detachOnClose(current, stream, res);
      if (revisionAtLeast(current.version, PRIMING_EVENT_SINCE)) {
        // Priming: an id before any message, so a client that loses the stream can resume it.
        stream.seq += 1;
        writeFrame(current, stream, `id: ${eventIdOf(stream.no, stream.seq)}\ndata: \n\n`);
      }
      void settled.then((reply) => deliver(current, stream, reply));
      return;
    }
    if (initializing && !noteInitialize(current, outcome)) delete headers[STREAMABLE_HTTP_HEADERS.sessionId];
    if (!useSse) return answerJson(res, 200, outcome ?? [], headers);
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    const stream = openStream(current, res, false);
    stream.pending = 1;
    deliver(current, stream, outcome);
  }

  /** Record the revision an initialize result named; a failed initialize keeps no session. */
  function noteInitialize(session: Session, reply: unknown): boolean {
    const result = (reply as { result?: { protocolVersion?: unknown } } | undefined)?.result;
    if (result === undefined) {
      end(session, 'initialize failed');
      return false;
    }
    if (typeof result.protocolVersion === 'string') session.version = result.protocolVersion;
    return true;
  }

  function get(req: IncomingMessage, res: ServerResponse): undefined {
    if (!acceptsMediaType(req.headers.accept, STREAMABLE_HTTP_CONTENT_TYPES.eventStream)) {
      return refuse(
        res,
        406,
        `Not Acceptable: a GET must accept text/event-stream (Accept: ${req.headers.accept ?? 'none'})`,
      );
    }
    const id = sessionHeader(req);
    if (typeof id === 'object') return refuse(res, 400, id.problem);
    if (id === undefined) {
      return refuse(res, 400, `Bad Request: the ${STREAMABLE_HTTP_HEADERS.sessionId} header is required`);
    }
    const session = sessions.get(id);
    if (session === undefined) return notFound(res, id);
    const versionProblem = headerVersionProblem(req);
    if (versionProblem !== undefined) return refuse(res, 400, versionProblem);
    session.lastActive = performance.now();
    const last = req.headers[STREAMABLE_HTTP_HEADERS.lastEventId];
    if (typeof last === 'string' && last !== '') return resume(session, res, last);
    if (session.standalone?.res !== undefined) {
      return refuse(res, 409, 'Conflict: this session already has a GET stream open');
    }
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    const stream = session.standalone ?? openStream(session, res, true);
    stream.res = res;
    session.standalone = stream;
    attachStandalone(session, stream, res);
  }

  function attachStandalone(session: Session, stream: Stream, res: ServerResponse): void {
    detachOnClose(session, stream, res);
    clearInterval(session.keepAlive);
    if (keepAliveMs > 0) {
      session.keepAlive = setInterval(() => writeFrame(session, stream, ': keep-alive\n\n'), keepAliveMs);
      session.keepAlive.unref();
    }
  }

  /** GET with Last-Event-ID: the events of that stream after it, then that stream goes on here. */
  function resume(session: Session, res: ServerResponse, lastEventId: string): undefined {
    const at = parseEventId(lastEventId);
    if (at !== undefined && session.replay.hasEnded(at.stream))
      return resumeEnded(session, res, at, lastEventId);
    const stream = at === undefined ? undefined : session.streams.get(at.stream);
    const events =
      at === undefined || stream === undefined ? undefined : session.replay.after(at.stream, at.seq);
    if (at === undefined || stream === undefined || events === undefined) {
      return refuse(
        res,
        400,
        `Bad Request: cannot resume after event ${JSON.stringify(lastEventId)}: this session has no stream with that event, or its events after it are no longer kept`,
      );
    }
    if (stream.res !== undefined) return refuse(res, 409, 'Conflict: that stream is still connected');
    res.writeHead(200, SSE_HEADERS);
    for (const event of events) res.write(event.frame);
    stream.res = res;
    if (stream.standalone) {
      session.standalone = stream;
      attachStandalone(session, stream, res);
      return;
    }
    detachOnClose(session, stream, res);
    finishPostStream(session, stream);
  }

  /** A resumption of a stream its client already read to the end: nothing after its last event. */
  function resumeEnded(
    session: Session,
    res: ServerResponse,
    at: { stream: number; seq: number },
    lastEventId: string,
  ): undefined {
    if (session.replay.after(at.stream, at.seq) === undefined) {
      return refuse(
        res,
        400,
        `Bad Request: cannot resume after event ${JSON.stringify(lastEventId)}: stream ${at.stream} ended and was read to its end, so its events are no longer kept (only a resumption after its last event is answered, with nothing)`,
      );
    }
    res.writeHead(200, SSE_HEADERS);
    res.end();
  }

  function del(req: IncomingMessage, res: ServerResponse): undefined {
    const id = sessionHeader(req);
    if (typeof id === 'object') return refuse(res, 400, id.problem);
    if (id === undefined) {
      return refuse(res, 400, `Bad Request: the ${STREAMABLE_HTTP_HEADERS.sessionId} header is required`);
    }
    const session = sessions.get(id);
    if (session === undefined) return notFound(res, id);
    end(session, 'the client ended it (DELETE)');
    res.writeHead(200).end();
  }

  function headerVersionProblem(req: IncomingMessage): string | undefined {
    const v = req.headers[STREAMABLE_HTTP_HEADERS.protocolVersion];
    if (v === undefined || (typeof v === 'string' && supported.has(v))) return undefined;
    return `Bad Request: unsupported ${STREAMABLE_HTTP_HEADERS.protocolVersion} ${JSON.stringify(v)} (supported: ${[...supported].join(', ')})`;
  }

  function route(req: IncomingMessage, res: ServerResponse): undefined {
    const refusal = hostRefusal(hosts, req.headers.host) ?? originRefusal(hosts, req.headers.origin);
    if (refusal !== undefined) return refuse(res, 403, `Forbidden: ${refusal}`);
    const denied = requiredHeaderRefusal(options.requireHeaders, req.headers);
    if (denied !== undefined) {
      return answerJson(res, denied.status, errorResponse(null, -32000, denied.message), {
        ...denied.headers,
      });
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== path) {
      return refuse(res, 404, `Not Found: the MCP endpoint is ${path} (POST, GET, DELETE)`);
    }
    if (req.method === 'GET') return get(req, res);
    if (req.method === 'DELETE') return del(req, res);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'GET, POST, DELETE');
      return refuse(res, 405, `Method Not Allowed: ${req.method}`);
    }
    readBody(req, res, bodies, bodyLimit, (problem, text) => {
      if (problem !== undefined) {
        res.setHeader('connection', 'close');
        return refuse(res, problem.status, problem.message);
      }
      post(req, res, text);
    });
    return undefined;
  }

  return {
    handle(req, res) {
      route(req, res);
    },
    sessionCount: () => sessions.size,
    replayBytes(sessionId) {
      if (sessionId === undefined) return replayBudget.size;
      return sessions.get(sessionId)?.replay.size ?? 0;
    },
    notify(sessionId, message) {
      const session = sessions.get(sessionId);
      const stream = session?.standalone;
      if (session === undefined || stream?.res === undefined || stream.res.destroyed) return false;
      sendEvent(session, stream, message);
      return true;
    },
    endSession(sessionId, reason = 'ended by the server') {
      const session = sessions.get(sessionId);
      if (session === undefined) return false;
      end(session, reason);
      return true;
    },
    close(reason = 'the server is shutting down') {
      if (sweep !== undefined) clearInterval(sweep);
      for (const s of [...sessions.values()]) end(s, reason);
    },
  };
}

/**
 * A message as JSON; one that cannot be serialized (a tool returned a BigInt or a cycle) becomes a
 * -32603 error for its id, so the client is not left waiting.
 */
function serialize(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch (e) {
    const id = (message as { id?: unknown } | null)?.id;
    const reason = e instanceof Error ? e.message : String(e);
    return JSON.stringify(
      errorResponse(
        typeof id === 'number' || typeof id === 'string' ? id : null,
        JSONRPC_ERRORS.internalError,
        `Internal error: the reply could not be serialized: ${reason}`,
      ),
    );
  }
}

/** The revision a request speaks: its MCP-Protocol-Version header, else the session's, else 2025-03-26. */
function requestVersion(req: IncomingMessage, session: Session): string {
  const v = req.headers[STREAMABLE_HTTP_HEADERS.protocolVersion];
  return typeof v === 'string' ? v : (session.version ?? '2025-03-26');
}

function sessionHeader(req: IncomingMessage): string | undefined | { problem: string } {
  const raw = req.headers[STREAMABLE_HTTP_HEADERS.sessionId];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw))
    return { problem: `Bad Request: more than one ${STREAMABLE_HTTP_HEADERS.sessionId} header` };
  if (!mcpSessionIdSchema.safeParse(raw).success) {
    return {
      problem: `Bad Request: ${STREAMABLE_HTTP_HEADERS.sessionId} ${JSON.stringify(raw)} is not visible ASCII`,
    };
  }
  return raw;
}

function notFound(res: ServerResponse, id: string): undefined {
  return refuse(
    res,
    404,
    `Not Found: no session ${id} (it ended, expired or never was): initialize a new one`,
    -32001,
  );
}

/** An HTTP refusal with a JSON-RPC error body (id null), as the SDK answers them. */
function refuse(res: ServerResponse, status: number, message: string, code = -32000): undefined {
  return answerJson(res, status, errorResponse(null, code, message));
}

function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): undefined {
  const text = Array.isArray(body) ? `[${body.map(serialize).join(',')}]` : serialize(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
  return undefined;
}

/**
 * The request body as text, or why it is refused: 413 once it passes `limit` bytes, 503 when
 * the bodies in flight would pass their budget (then the rest is never read). What the request
 * holds of the budget is given back once its answer ends.
 */
function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  budget: BodyBudget,
  limit: number,
  done: (problem: { status: number; message: string } | undefined, text: string) => void,
): void {
  const declared = declaredOverLimit(req.headers, limit);
  if (declared !== undefined) {
    req.resume();
    done(
      {
        status: 413,
        message: `Payload Too Large: the body is ${declared} bytes, over the limit of ${limit}`,
      },
      '',
    );
    return;
  }
  const hold = BodyHold.open(budget, req.headers, limit);
  if (typeof hold === 'string') {
    done({ status: 503, message: `Service Unavailable: ${hold}` }, '');
    return;
  }
  hold.releaseWhenAnswered(res);
  const chunks: Buffer[] = [];
  let bytes = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    bytes += chunk.length;
    if (bytes > limit) {
      over = true;
      chunks.length = 0;
      done({ status: 413, message: `Payload Too Large: the body went past the limit of ${limit} bytes` }, '');
      return;
    }
    const refusal = hold.received(chunk.length);
    if (refusal !== undefined) {
      over = true;
      chunks.length = 0;
      done({ status: 503, message: `Service Unavailable: ${refusal}` }, '');
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!over)
      done(
        undefined,
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      );
  });
  req.on('error', () => {});
}
