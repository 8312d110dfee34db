import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponse, JSONRPC_ERRORS, type JsonRpcId } from '../../protocol/jsonrpc/index.js';
import { isProtocolRevision, METHODS, PROTOCOL_REVISIONS } from '../../protocol/mcp/index.js';
import {
  acceptsMediaType,
  bodyHasRequest,
  PROTOCOL_VERSION_HEADER_SINCE,
  responseIdOf,
  revisionAtLeast,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_DEFAULT_PATH,
  STREAMABLE_HTTP_HEADERS,
} from '../../protocol/mcp/streamable-http.js';
import { encodeComment, encodeFrame } from '../../protocol/sse/index.js';
import { redactTarget } from '../../recording/redact.js';
import { checkOutboundQueue, describeOverflow } from '../../servers/http/outbound-queue.js';
import { batchProblem } from '../limits.js';
import { headersAtOf, httpOf, listeningOrigin, mockHttpBase, secretsOfMockRequest } from './http-common.js';
import { messageEntry, type ToolJournalEntry, UNNAMED_SESSION } from './journal.js';
import type { ToolScenario, ToolScenarioInput } from './scenario.js';
import { sessionMessages } from './session.js';
import type {
  BuiltMockToolServer,
  MockSession,
  MockToolServerOptions,
  RunningMockToolServer,
} from './sse.js';

/** The one endpoint of the Streamable HTTP mock. */
export const MOCK_HTTP_PATH = STREAMABLE_HTTP_DEFAULT_PATH;

/**
 * Sessions open at once; past it the oldest is ended. Streamable HTTP sessions outlive their
 * connections, and a client that never sends DELETE must not fill the mock's memory.
 */
export const MAX_OPEN_HTTP_SESSIONS = 1_000;

/** Server messages a session holds for a GET stream that is not open (the oldest are dropped past it). */
export const HTTP_BACKLOG_LIMIT = 1_000;

/**
 * Answer streams a session keeps, open or waiting to be resumed; past it (or past the session's
 * queue limit in events held) the oldest nobody is connected to are forgotten.
 */
export const MAX_KEPT_ANSWER_STREAMS = 1_000;

/**
 * The answer to one POST that the session owes answers: a JSON body, or an event stream. The
 * answers are those of its requests and of its invalid messages (JSON-RPC's Invalid Request
 * errors), as the reference endpoint answers them in the POST's response.
 */
interface Exchange {
  readonly mode: 'json' | 'sse';
  /** 200, or 400 for a POST of invalid messages and no request (the reference answers it so). */
  readonly status: 200 | 400;
  /** json: the POST was a batch, answered with an array (JSON-RPC 2.0) however many responses it owes. */
  readonly batch: boolean;
  /** Prefix of its event ids (unique in the session). */
  readonly streamId: string;
  /** Answers it still owes (a request id sent twice is owed twice). */
  owed: number;
  /** json: the responses so far. */
  readonly texts: string[];
  readonly reply: FastifyReply;
  /** sse: where its events go now (the POST's response, or the GET that resumed it). */
  raw: ServerResponse | undefined;
  /** sse: events written while nobody was connected (with their sequence number), for the GET that resumes it. */
  held: { seq: number; event: string }[];
  /** sse: the bytes of `held`. */
  heldBytes: number;
  events: number;
  /** sse: an event went to a connection, so the client may hold an id to resume after. */
  written: boolean;
  /** sse: when the mock dropped it (performance.now()), for the GET that resumes it. */
  droppedAt?: number;
}

interface HttpSession {
  readonly id: string;
  readonly index: number;
  session: MockSession;
  /** Exchanges owing a response, by request id, oldest first (a client may reuse an id). */
  readonly byRequest: Map<string | number, Exchange[]>;
  /** Exchanges owing an Invalid Request error, one entry per error, oldest first. */
  readonly owingInvalid: Exchange[];
  /** Event-stream exchanges not finished or waiting to be resumed, by stream id (for Last-Event-ID), oldest first. */
  readonly streams: Map<string, Exchange>;
  /** The bytes held for answer streams nobody is connected to (bounded by the queue limit). */
  heldBytes: number;
  get: ServerResponse | undefined;
  getEvents: number;
  backlog: string[];
  /** The version the mock answered `initialize` with. */
  negotiated: string | undefined;
  /** The mock ended the session (closeStreamAfter): nothing more is answered. */
  silenced: boolean;
  exchanges: number;
  keepAlive: NodeJS.Timeout | undefined;
}

/**
 * The mock tool server over MCP's Streamable HTTP transport (2025-03-26 and later), as a
 * fastify app that never listens: one endpoint (`/mcp`) taking POST (one JSON-RPC message or
 * a batch), GET (the optional server stream, or the rest of a dropped stream with
 * `Last-Event-ID`) and DELETE (end the session).
 *
 * - `initialize` opens a session: its answer carries `Mcp-Session-Id` (a random UUID);
 *   every later request must carry it (400 without, 404 for an unknown or ended one).
 * - A POST carrying requests is answered as the scenario says (`httpAnswer`): one JSON body
 *   once every response is ready, or an event stream that carries the server's messages
 *   and the responses, each event with an id, and ends after the last response. A POST of
 *   notifications or responses only gets 202. An invalid message's error is owed by its POST
 *   as a response is (200, or 400 for a POST without a request: the reference's answers).
 * - The server's own messages (notifications, its ping) go on the newest open answer
 *   stream, else on the GET stream, else wait for one (at most HTTP_BACKLOG_LIMIT).
 * - Faults of this transport: `httpAnswer`, `dropAnswerStream` (the first POST carrying a
 *   tools/call, alone or in a batch; the drop journaled, `droppedAnswerStreams`), `resumption`, `expireSession`,
 *   `requireProtocolVersion`, `getStream`; of all: `replyDelayMs`, `notifications`,
 *   `pingFirst`, `lifecycleNotifications`, `commentFrames`, `keepAliveMs` (the GET stream),
 *   `closeStreamAfter` (after N messages the mock goes away: open streams are cut and every
 *   later request's connection is closed unanswered, journaled with status 0; the session
 *   is not reported expired, so a client sees a dead transport, not a 404).
 * - Journal, Host/Origin checks, redaction and bounds as the SSE mock has them; open
 *   sessions are bounded by MAX_OPEN_HTTP_SESSIONS.
 */
export function buildStreamableHttpMockToolServer(
  input: ToolScenario | ToolScenarioInput = {},
  options: MockToolServerOptions = {},
): BuiltMockToolServer {
  const { scenario, journal, app, sessions, closedIds, queueLimit, log, nextIndex, createSession } =
    mockHttpBase(input, options, 'http');
  const open = new Map<string, HttpSession>();
  const { faults } = scenario;
  let expired = false;
  let dropped = false;

  const record = (request: FastifyRequest, status: number, session: string, body: string) => {
    const entry = messageEntry(body, {
      session,
      transport: 'http',
      direction: 'received',
      http: httpOf(request.method, request.url, status, request.headers, headersAtOf(request)),
    });
    journal.record(entry, secretsOfMockRequest(request));
    return entry;
  };
  const recordOther = (
    request: FastifyRequest,
    status: number,
    session: string,
    kind: 'stream-open' | 'closed',
    resume?: ToolJournalEntry['resume'],
  ) =>
    journal.record(
      {
        session,
        transport: 'http',
        direction: 'received',
        kind,
        text: `${request.method} ${redactTarget(request.url)}`,
        http: httpOf(request.method, request.url, status, request.headers),
        ...(resume === undefined ? {} : { resume }),
      },
      secretsOfMockRequest(request),
    );
  const refuse = (reply: FastifyReply, status: number, message: string) =>
    // The official SDK's server answers transport errors with a JSON-RPC error body, id null.
    reply.code(status).send(errorResponse(null, -32000, message));

  /** A bounded write on an event stream: a client that stopped reading is cut off. */
  const writeTo = (s: HttpSession, raw: ServerResponse, text: string) => {
    if (raw.writableEnded || raw.destroyed) return;
    raw.write(text);
    checkOutboundQueue(raw, queueLimit, (overflow) => log(describeOverflow(s.id, overflow)));
  };
  const frame = (id: string, text: string) =>
    `${faults.commentFrames ? encodeComment('wirecheck comment') : ''}id: ${id}\n${encodeFrame('message', text)}`;

  const emit = (s: HttpSession, ex: Exchange, text: string) => {
    if (ex.mode === 'json') {
      ex.texts.push(text);
      return;
    }
    const seq = ++ex.events;
    const event = frame(`${ex.streamId}-${seq}`, text);
    if (ex.raw !== undefined) {
      ex.written = true;
      writeTo(s, ex.raw, event);
      return;
    }
    // A stream forgotten (bounds) can be resumed by no GET: its events go nowhere.
    if (!s.streams.has(ex.streamId)) return;
    const bytes = Buffer.byteLength(event);
    ex.held.push({ seq, event });
    ex.heldBytes += bytes;
    s.heldBytes += bytes;
    boundStreams(s);
  };

  /** The stream can no longer be resumed: what it held is released. */
  const forget = (s: HttpSession, ex: Exchange) => {
    s.streams.delete(ex.streamId);
    s.heldBytes -= ex.heldBytes;
    ex.heldBytes = 0;
    ex.held = [];
  };

  /** Past MAX_KEPT_ANSWER_STREAMS streams or the queue limit in bytes held, the oldest nobody is connected to are forgotten. */
  const boundStreams = (s: HttpSession) => {
    for (const ex of s.streams.values()) {
      if (s.heldBytes <= queueLimit && s.streams.size <= MAX_KEPT_ANSWER_STREAMS) return;
      if (ex.raw !== undefined) continue;
      log(
        `session ${s.id}: answer stream ${ex.streamId} forgotten, its client gone (${s.heldBytes} bytes held for ${s.streams.size} streams)`,
      );
      forget(s, ex);
    }
  };

  const finish = (s: HttpSession, ex: Exchange) => {
    if (ex.mode === 'json') {
      const body = !ex.batch && ex.texts.length === 1 ? ex.texts[0]! : `[${ex.texts.join(',')}]`;
      void ex.reply.code(ex.status).type(STREAMABLE_HTTP_CONTENT_TYPES.json).send(body);
      return;
    }
    if (ex.raw === undefined) {
      // Kept for a GET to resume only when a client can name it: the mock dropped it (the
      // dropAnswerStream fault) or the client had one of its event ids. A client that left before
      // any event (a reply delayed, a ping first) cannot come back for it.
      if (ex.droppedAt === undefined && !ex.written) forget(s, ex);
      return;
    }
    s.streams.delete(ex.streamId);
    ex.raw.end();
  };

  /** Where the session's messages go: responses to their exchange, the rest to the newest open stream. */
  const deliver = (s: HttpSession, text: string) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const owner = ownerOf(s, value);
    if (owner !== undefined) {
      if (value !== null && typeof value === 'object' && 'result' in value && s.negotiated === undefined) {
        const version = (value.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        if (typeof version === 'string') s.negotiated = version;
      }
      owner.owed -= 1;
      emit(s, owner, text);
      if (owner.owed === 0) finish(s, owner);
      return;
    }
    const live = [...s.streams.values()].reverse().find((ex) => ex.raw !== undefined);
    if (live !== undefined) {
      emit(s, live, text);
      return;
    }
    if (s.get !== undefined) {
      writeTo(s, s.get, frame(`g-${++s.getEvents}`, text));
      return;
    }
    s.backlog.push(text);
    if (s.backlog.length > HTTP_BACKLOG_LIMIT) s.backlog.shift();
  };

  /**
   * The mock goes away (closeStreamAfter): every open answer and stream is cut, and every
   * later request of the session has its connection closed without an answer, which any
   * HTTP client sees as a transport failure (a stream that merely ended could still be
   * waited on, or resumed).
   */
  const silence = (s: HttpSession) => {
    s.silenced = true;
    for (const ex of s.streams.values()) ex.raw?.destroy();
    s.streams.clear();
    s.heldBytes = 0;
    for (const ex of owingExchanges(s)) if (ex.mode === 'json') ex.reply.raw.destroy();
    s.byRequest.clear();
    s.owingInvalid.length = 0;
    s.get?.destroy();
    s.get = undefined;
  };

  /** DELETE, or past MAX_OPEN_HTTP_SESSIONS: its streams end cleanly, later requests get 404. */
  const endCleanly = (s: HttpSession) => {
    for (const ex of s.streams.values()) ex.raw?.end();
    s.streams.clear();
    s.heldBytes = 0;
    for (const ex of owingExchanges(s)) if (ex.mode === 'json') ex.reply.raw.destroy();
    s.byRequest.clear();
    s.owingInvalid.length = 0;
    s.get?.end();
    s.get = undefined;
  };

  const end = (s: HttpSession) => {
    open.delete(s.id);
    sessions.delete(s.id);
    closedIds.add(s.id);
    clearInterval(s.keepAlive);
    s.session.dispose();
    endCleanly(s);
  };

  const newSession = (): HttpSession => {
    const index = nextIndex();
    const id = randomUUID();
    const s: HttpSession = {
      id,
      index,
      session: undefined as unknown as MockSession,
      byRequest: new Map(),
      owingInvalid: [],
      streams: new Map(),
      get: undefined,
      getEvents: 0,
      backlog: [],
      negotiated: undefined,
      heldBytes: 0,
      silenced: false,
      exchanges: 0,
      keepAlive: undefined,
    };
    const channel = {
      session: id,
      transport: 'http' as const,
      write: (text: string) => deliver(s, text),
      close: () => silence(s),
    };
    s.session = createSession(channel, index);
    open.set(id, s);
    sessions.set(id, s.session);
    s.session.start();
    if (open.size > MAX_OPEN_HTTP_SESSIONS) {
      const oldest = open.values().next().value;
      if (oldest !== undefined) {
        log(`session ${oldest.id}: ended, more than ${MAX_OPEN_HTTP_SESSIONS} sessions were open`);
        end(oldest);
      }
    }
    return s;
  };

  /** The session a request names, or the refusal already sent (400 without an id, 404 unknown, 400 bad version). */
  const sessionOf = (request: FastifyRequest, reply: FastifyReply, body: string): HttpSession | undefined => {
    const raw = request.headers[STREAMABLE_HTTP_HEADERS.sessionId];
    const id = Array.isArray(raw) ? raw[0] : raw;
    const note = (status: number, session: string) =>
      request.method === 'POST'
        ? record(request, status, session, body)
        : recordOther(request, status, session, request.method === 'GET' ? 'stream-open' : 'closed');
    if (id === undefined || id === '') {
      note(400, UNNAMED_SESSION);
      refuse(reply, 400, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const s = open.get(id);
    if (s === undefined) {
      note(404, id);
      refuse(reply, 404, closedIds.has(id) ? `Session ${id} has ended` : `Session not found: ${id}`);
      return undefined;
    }
    if (faults.requireProtocolVersion) {
      const sent = request.headers[STREAMABLE_HTTP_HEADERS.protocolVersion];
      if (sent === undefined || sent !== s.negotiated) {
        note(400, id);
        refuse(
          reply,
          400,
          `Bad Request: MCP-Protocol-Version ${sent === undefined ? 'missing' : JSON.stringify(sent)}, expected ${JSON.stringify(s.negotiated)}`,
        );
        return undefined;
      }
    }
    // 2025-06-18 and later: an invalid or unsupported MCP-Protocol-Version MUST be answered 400. A
    // revision other than the negotiated one is left to the client checks (a should), not refused.
    const sent = request.headers[STREAMABLE_HTTP_HEADERS.protocolVersion];
    if (
      sent !== undefined &&
      revisionAtLeast(s.negotiated, PROTOCOL_VERSION_HEADER_SINCE) &&
      !isProtocolRevision(sent)
    ) {
      note(400, id);
      refuse(
        reply,
        400,
        `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(sent)} (supported: ${PROTOCOL_REVISIONS.join(', ')})`,
      );
      return undefined;
    }
    return s;
  };

  app.post(MOCK_HTTP_PATH, (request, reply) => {
    const body = typeof request.body === 'string' ? request.body : '';
    const probe = messageEntry(body, { session: '', transport: 'http', direction: 'received' });
    if (probe.parseError !== undefined) {
      const session = String(request.headers[STREAMABLE_HTTP_HEADERS.sessionId] ?? UNNAMED_SESSION);
      record(request, 400, session, body);
      const answer = errorResponse(null, JSONRPC_ERRORS.parseError, `Parse error: ${probe.parseError}`);
      // The parser's message may quote the body: scrubbed of the request's credentials as the body is.
      journal.record(
        {
          session,
          transport: 'http',
          direction: 'sent',
          kind: 'message',
          text: JSON.stringify(answer),
          value: answer,
        },
        secretsOfMockRequest(request),
      );
      void reply.code(400).send(answer);
      return;
    }
    const value = probe.value;
    const initializing =
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      (value as { method?: unknown }).method === METHODS.initialize;
    const owed = answersOwed(value);
    let s: HttpSession | undefined;
    if (initializing) s = newSession();
    else {
      s = sessionOf(request, reply, body);
      if (s === undefined) return;
      if (faults.expireSession && !expired && s.index === 0 && owed.requests.length > 0) {
        expired = true;
        record(request, 404, s.id, body);
        end(s);
        refuse(reply, 404, `Session not found: ${s.id} (wirecheck mock: the session expired)`);
        return;
      }
    }
    const session = s;
    const headers = initializing ? { [STREAMABLE_HTTP_HEADERS.sessionId]: session.id } : {};
    if (session.silenced) {
      record(request, 0, session.id, body);
      reply.raw.destroy();
      return;
    }
    if (owed.requests.length === 0 && owed.invalid === 0) {
      record(request, 202, session.id, body);
      void reply.code(202).headers(headers).send();
      session.session.receive(value, body);
      return;
    }
    // A batch refused whole (MAX_BATCH_MESSAGES) is answered as an invalid one: 400, its JSON-RPC error.
    const status = bodyHasRequest(value) && batchProblem(value) === undefined ? 200 : 400;
    record(request, status, session.id, body);
    const ex: Exchange = {
      mode: status === 400 ? 'json' : faults.httpAnswer,
      status,
      batch: Array.isArray(value),
      streamId: String(++session.exchanges),
      owed: owed.requests.length + owed.invalid,
      texts: [],
      reply,
      raw: undefined,
      held: [],
      heldBytes: 0,
      events: 0,
      written: false,
    };
    for (const id of owed.requests) {
      const owners = session.byRequest.get(id);
      if (owners === undefined) session.byRequest.set(id, [ex]);
      else owners.push(ex);
    }
    for (let i = 0; i < owed.invalid; i++) session.owingInvalid.push(ex);
    if (ex.mode === 'json') {
      void reply.headers(headers);
    } else {
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': STREAMABLE_HTTP_CONTENT_TYPES.eventStream,
        'cache-control': 'no-cache, no-transform',
        ...headers,
      });
      raw.on('error', () => {});
      session.streams.set(ex.streamId, ex);
      if (faults.dropAnswerStream && carriesCall(value) && !dropped) {
        // An event with only an id primes the client to come back with it (2025-11-25), then the stream ends.
        dropped = true;
        // Taken before the write: any error of the measure makes the client's wait look longer, never shorter.
        ex.droppedAt = performance.now();
        raw.end(`id: ${ex.streamId}-0\nretry: ${faults.dropRetryMs}\ndata: \n\n`);
        // A check blames a client for not resuming only a stream it knows was broken.
        journal.record({
          session: session.id,
          transport: 'http',
          direction: 'sent',
          kind: 'closed',
          text: `${DROPPED_STREAM_NOTE}: stream ${ex.streamId}, after its id-only event ${ex.streamId}-0 (retry: ${faults.dropRetryMs})`,
        });
      } else {
        ex.raw = raw;
        raw.on('close', () => {
          if (ex.raw === raw) ex.raw = undefined;
        });
      }
      // After its connection is set: the new stream is no candidate to forget.
      boundStreams(session);
    }
    session.session.receive(value, body);
  });

  app.get(MOCK_HTTP_PATH, (request, reply) => {
    const arrived = performance.now();
    const s = sessionOf(request, reply, '');
    if (s === undefined) return;
    if (s.silenced) {
      recordOther(request, 0, s.id, 'stream-open');
      reply.raw.destroy();
      return;
    }
    if (!acceptsMediaType(request.headers.accept, STREAMABLE_HTTP_CONTENT_TYPES.eventStream)) {
      recordOther(request, 406, s.id, 'stream-open');
      refuse(reply, 406, 'Not Acceptable: a GET must accept text/event-stream');
      return;
    }
    const last = request.headers[STREAMABLE_HTTP_HEADERS.lastEventId];
    const lastId = Array.isArray(last) ? last[0] : last;
    const resumed =
      lastId === undefined ? undefined : s.streams.get(lastId.slice(0, lastId.lastIndexOf('-')));
    // The id of an event the mock sent on that stream: `<stream>-<seq>`, seq 0 the priming event.
    const after = resumed === undefined ? undefined : Number(lastId?.slice(lastId.lastIndexOf('-') + 1));
    const resume =
      resumed?.droppedAt === undefined
        ? undefined
        : {
            retryMs: faults.dropRetryMs,
            sinceDropMs: Math.round((arrived - resumed.droppedAt) * 1000) / 1000,
          };
    if (resumed !== undefined) {
      const refusal =
        faults.resumption === 'refused'
          ? `cannot resume after event ${JSON.stringify(lastId)}: this server keeps no events to replay`
          : !Number.isInteger(after) || after === undefined || after < 0 || after > resumed.events
            ? `cannot resume after event ${JSON.stringify(lastId)}: no such event was sent on that stream`
            : undefined;
      if (refusal !== undefined) {
        recordOther(request, 400, s.id, 'stream-open', resume);
        refuse(reply, 400, `Bad Request: ${refusal}`);
        return;
      }
    }
    if (resumed === undefined) {
      if (faults.getStream === 'refused') {
        recordOther(request, 405, s.id, 'stream-open');
        void reply
          .code(405)
          .header('allow', 'POST, DELETE')
          .send(errorResponse(null, -32000, 'Method not allowed'));
        return;
      }
      if (s.get !== undefined) {
        recordOther(request, 409, s.id, 'stream-open');
        refuse(reply, 409, 'Conflict: only one GET stream is allowed per session');
        return;
      }
    }
    recordOther(request, 200, s.id, 'stream-open', resume);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': STREAMABLE_HTTP_CONTENT_TYPES.eventStream,
      'cache-control': 'no-cache, no-transform',
    });
    raw.on('error', () => {});
    if (resumed !== undefined) {
      // The rest of a dropped answer stream: what it held after that event, then what comes.
      resumed.raw = raw;
      resumed.written = true;
      const held = resumed.held;
      s.heldBytes -= resumed.heldBytes;
      resumed.held = [];
      resumed.heldBytes = 0;
      for (const { seq, event } of held) if (seq > (after ?? 0)) writeTo(s, raw, event);
      raw.on('close', () => {
        if (resumed.raw === raw) resumed.raw = undefined;
      });
      if (resumed.owed === 0) finish(s, resumed);
      return;
    }
    s.get = raw;
    raw.flushHeaders();
    if (faults.keepAliveMs !== undefined) {
      s.keepAlive = setInterval(() => writeTo(s, raw, encodeComment('keep-alive')), faults.keepAliveMs);
    }
    raw.on('close', () => {
      clearInterval(s.keepAlive);
      if (s.get === raw) s.get = undefined;
    });
    for (const text of s.backlog.splice(0)) writeTo(s, raw, frame(`g-${++s.getEvents}`, text));
  });

  app.delete(MOCK_HTTP_PATH, (request, reply) => {
    const s = sessionOf(request, reply, '');
    if (s === undefined) return;
    if (s.silenced) {
      recordOther(request, 0, s.id, 'closed');
      reply.raw.destroy();
      return;
    }
    recordOther(request, 200, s.id, 'closed');
    end(s);
    void reply.code(200).send();
  });

  app.addHook('preClose', (done) => {
    for (const s of [...open.values()]) end(s);
    done();
  });

  return { app, journal, scenario, sessions };
}

/** Build and listen (127.0.0.1, a free port by default); `url` is the endpoint. */
export async function startStreamableHttpMockToolServer(
  scenario: ToolScenario | ToolScenarioInput = {},
  options: MockToolServerOptions & { host?: string; port?: number } = {},
): Promise<RunningMockToolServer> {
  const { host = '127.0.0.1', port = 0, ...rest } = options;
  const built = buildStreamableHttpMockToolServer(scenario, { host, ...rest });
  await built.app.listen({ host, port });
  return {
    url: `${listeningOrigin(built.app).origin}${MOCK_HTTP_PATH}`,
    journal: () => built.journal.entries(),
    live: built.journal,
    close: () => built.app.close(),
  };
}

/** How the journal begins the record of an answer stream the mock ended before its answers (`dropAnswerStream`). */
export const DROPPED_STREAM_NOTE = 'the mock ended the answer stream before its answers (dropAnswerStream)';

/**
 * The answer streams the Streamable HTTP mock ended early (`dropAnswerStream`), as its journal
 * records them: a client can have resumed only a stream that was broken.
 */
export function droppedAnswerStreams(journal: readonly ToolJournalEntry[]): ToolJournalEntry[] {
  return journal.filter(
    (e) =>
      e.transport === 'http' &&
      e.direction === 'sent' &&
      e.kind === 'closed' &&
      e.text.startsWith(DROPPED_STREAM_NOTE),
  );
}

/**
 * Whether a POSTed value carries a tools/call request, alone or in a batch (MCP 2025-03-26: a
 * peer MUST support receiving batches, so a call in a batch is a call).
 */
function carriesCall(value: unknown): boolean {
  return sessionMessages(value).some((c) => c.kind === 'request' && c.message.method === METHODS.toolsCall);
}

/** The answers the session owes a POSTed value: its requests' ids (in order, repeats kept) and its Invalid Request errors. */
function answersOwed(value: unknown): { requests: JsonRpcId[]; invalid: number } {
  const requests: JsonRpcId[] = [];
  let invalid = 0;
  for (const c of sessionMessages(value)) {
    if (c.kind === 'request') requests.push(c.message.id);
    else if (c.kind === 'invalid') invalid += 1;
  }
  return { requests, invalid };
}

/**
 * The exchange a message of the session answers, taken off what it owes. An Invalid Request
 * error goes to the oldest exchange owing one first: its id (null, or one the client reused)
 * names no request reliably.
 */
function ownerOf(s: HttpSession, value: unknown): Exchange | undefined {
  if (isInvalidRequestError(value) && s.owingInvalid.length > 0) return s.owingInvalid.shift();
  const id = responseIdOf(value);
  if (id === undefined) return undefined;
  const owners = s.byRequest.get(id);
  const owner = owners?.shift();
  if (owners?.length === 0) s.byRequest.delete(id);
  return owner;
}

function isInvalidRequestError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { error } = value as { error?: { code?: unknown; message?: unknown } };
  return (
    error?.code === JSONRPC_ERRORS.invalidRequest &&
    typeof error.message === 'string' &&
    error.message.startsWith('Invalid Request: ')
  );
}

function owingExchanges(s: HttpSession): Set<Exchange> {
  return new Set([...[...s.byRequest.values()].flat(), ...s.owingInvalid]);
}
