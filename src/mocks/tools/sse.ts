import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ToolSession } from '../../fixtures/schema.js';
import { SESSION_QUERY_PARAM, TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';
import { encodeComment, encodeFrame } from '../../protocol/sse/index.js';
import { redactTarget } from '../../recording/redact.js';
import type { HostPolicyOptions } from '../../servers/http/host-guard.js';
import { checkOutboundQueue, describeOverflow } from '../../servers/http/outbound-queue.js';
import { sessionIdOfRequest } from '../../servers/http/session-id.js';
import { nodeHttp } from '../../transports/node-http.js';
import type { JournalLimits } from '../limits.js';
import {
  headersAtOf,
  httpOf,
  listeningOrigin,
  mockHttpBase,
  originOf,
  secretsOfMockRequest,
} from './http-common.js';
import { messageEntry, type ToolJournal, type ToolJournalEntry, UNNAMED_SESSION } from './journal.js';
import type { ReplayToolSession } from './replay-session.js';
import type { ToolScenario, ToolScenarioInput } from './scenario.js';
import type { MockToolSession } from './session.js';

/** Paths of the mock's SSE transport (spec "Tool server, SSE transport"). */
export const MOCK_SSE_PATH = '/sse';
export const MOCK_MESSAGES_PATH = '/messages';

export interface MockToolServerOptions extends HostPolicyOptions {
  /** Called with every journal entry as it is recorded (e.g. to append it to a file). */
  readonly onEntry?: (entry: ToolJournalEntry) => void;
  /** Bounds of the journal (default DEFAULT_JOURNAL_LIMITS: 10,000 entries, 64 MiB, 1 MiB per message). */
  readonly journalLimits?: Partial<JournalLimits>;
  /**
   * Bytes a session's stream may hold for a client that stopped reading; past it the
   * stream is cut and the session forgotten (default SESSION_QUEUE_LIMIT_BYTES, 16 MiB).
   */
  readonly sessionQueueLimit?: number;
  /**
   * The largest POST body (default 4 MiB, the reference server's: BODY_LIMIT_BYTES over SSE,
   * STREAMABLE_BODY_LIMIT_BYTES over Streamable HTTP); a larger one is answered 413 and journaled
   * with its start.
   */
  readonly bodyLimit?: number;
  /** Where the mock says why it dropped a session (default: nowhere). */
  readonly log?: (line: string) => void;
  /** Serve this recorded session (an SSE or stdio recording) to every client, instead of the scenario's answers. */
  readonly replay?: ToolSession | readonly ToolSession[];
  /** Of the replay: 1 as recorded (default), 2 twice as fast, 0 as fast as possible. */
  readonly speed?: number;
  /** Fault `endpoint: other-origin`: the origin of the second listener POSTs go to. */
  readonly otherOrigin?: () => string | undefined;
}

/** The protocol side of one mock session: scripted by the scenario, or replaying a recording. */
export type MockSession = MockToolSession | ReplayToolSession;

/** A built (not listening) SSE mock tool server. */
export interface BuiltMockToolServer {
  readonly app: FastifyInstance;
  readonly journal: ToolJournal;
  readonly scenario: ToolScenario;
  /** Sessions open now, by id (a closed session is forgotten: its memory is released). */
  readonly sessions: ReadonlyMap<string, MockSession>;
}

interface OpenStream {
  readonly session: MockSession;
  readonly raw: ServerResponse;
  ended: boolean;
}

/**
 * The SSE mock tool server as a fastify app that never listens: GET /sse opens a session
 * (first event `endpoint`), POST /messages?sessionId=... takes one JSON-RPC message and
 * answers 202 (or 200, fault), the reply going out on the session's stream.
 */
export function buildMockToolServer(
  input: ToolScenario | ToolScenarioInput = {},
  options: MockToolServerOptions = {},
): BuiltMockToolServer {
  const { scenario, journal, app, sessions, closedIds, queueLimit, log, nextIndex, createSession } =
    mockHttpBase(input, options, 'sse');
  const streams = new Map<string, OpenStream>();
  const { faults } = scenario;

  app.get(MOCK_SSE_PATH, (request, reply) => {
    // The index seeds the session's own random choices; the id is random (crypto): a
    // client cannot guess another session's id and POST into its stream.
    const index = nextIndex();
    const id = randomUUID();
    journal.record(
      {
        session: id,
        transport: 'sse',
        direction: 'received',
        kind: 'stream-open',
        text: `${request.method} ${redactTarget(request.url)}`,
        http: httpOf(request.method, request.url, 200, request.headers),
      },
      secretsOfMockRequest(request),
    );
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const stream: OpenStream = {
      raw,
      ended: false,
      session: undefined as unknown as MockSession,
    };
    // Every write is followed by a look at what waits for the client: a client that
    // stopped reading is cut off once SESSION_QUEUE_LIMIT_BYTES wait.
    const bounded = (write: () => void) => {
      if (stream.ended) return;
      write();
      checkOutboundQueue(raw, queueLimit, (overflow) => log(describeOverflow(id, overflow)));
    };
    const channel = {
      session: id,
      transport: 'sse' as const,
      write: (text: string) =>
        bounded(() => {
          if (faults.commentFrames) raw.write(encodeComment('wirecheck comment'));
          raw.write(encodeFrame(TOOL_SSE_EVENTS.message, text));
        }),
      writeRaw: (bytes: Uint8Array) => bounded(() => raw.write(bytes)),
      close: () => endStream(stream),
    };
    (stream as { session: MockSession }).session = createSession(channel, index);
    sessions.set(id, stream.session);
    streams.set(id, stream);
    const path = `${MOCK_MESSAGES_PATH}?${SESSION_QUERY_PARAM}=${encodeURIComponent(id)}`;
    const other = faults.endpoint === 'other-origin' ? options.otherOrigin?.() : undefined;
    const endpoint =
      other !== undefined
        ? `${other}${path}`
        : faults.endpoint === 'relative'
          ? path
          : `${originOf(request.headers.host, app)}${path}`;
    journal.record({ session: id, transport: 'sse', direction: 'sent', kind: 'endpoint', text: endpoint });
    if (faults.commentFrames) raw.write(encodeComment('wirecheck comment'));
    raw.write(encodeFrame(TOOL_SSE_EVENTS.endpoint, endpoint));
    const keepAlive =
      faults.keepAliveMs === undefined
        ? undefined
        : setInterval(() => bounded(() => raw.write(encodeComment('keep-alive'))), faults.keepAliveMs);
    // A write racing the client's disconnect must not crash the mock; 'close' follows.
    raw.on('error', () => {});
    raw.on('close', () => {
      clearInterval(keepAlive);
      // Forgotten at once: the session, its stream and everything they hold are released.
      streams.delete(id);
      sessions.delete(id);
      closedIds.add(id);
      if (!stream.ended) {
        stream.ended = true;
        journal.record({
          session: id,
          transport: 'sse',
          direction: 'received',
          kind: 'closed',
          text: 'the client closed the stream',
        });
      }
      stream.session.dispose();
    });
    stream.session.start();
  });

  app.post(MOCK_MESSAGES_PATH, (request, reply) => {
    const found = sessionIdOfRequest(request, MOCK_MESSAGES_PATH);
    const id = typeof found === 'string' ? found : '';
    const body = typeof request.body === 'string' ? request.body : '';
    const stream = streams.get(id);
    // Spec "Errors": a POST with no active SSE stream gets 400 and a JSON object with `error`.
    const status = stream === undefined || stream.ended ? 400 : faults.postStatus;
    const entry = messageEntry(body, {
      session: stream === undefined ? id || UNNAMED_SESSION : id,
      transport: 'sse',
      direction: 'received',
      http: httpOf('POST', request.url, status, request.headers, headersAtOf(request)),
    });
    journal.record(entry, secretsOfMockRequest(request));
    if (stream === undefined || stream.ended) {
      const why =
        stream !== undefined || closedIds.has(id)
          ? `the stream of session ${id} is closed`
          : typeof found === 'string'
            ? `no session ${JSON.stringify(id)}`
            : found.problem;
      reply.code(400).send({ error: `no active SSE stream: ${why}` });
      return;
    }
    reply.code(status).type('text/plain; charset=utf-8').send('Accepted');
    // The reply goes on the stream after the POST is answered, as the spec's sequence shows.
    setImmediate(() => {
      if (entry.parseError !== undefined) stream.session.receiveUnparseable(entry.parseError);
      else stream.session.receive(entry.value, entry.text);
    });
  });

  function endStream(stream: OpenStream): void {
    if (stream.ended) return;
    stream.ended = true;
    stream.raw.end();
  }

  app.addHook('preClose', (done) => {
    for (const s of [...streams.values()]) {
      s.session.dispose();
      endStream(s);
    }
    done();
  });

  return { app, journal, scenario, sessions };
}

/** A listening SSE mock tool server. */
export interface RunningMockToolServer {
  /** The stream URL (`http://127.0.0.1:PORT/sse`): what a client is given. */
  readonly url: string;
  /** Every entry so far, oldest first. */
  journal(): ToolJournalEntry[];
  readonly live: ToolJournal;
  close(): Promise<void>;
}

/** Build and listen (127.0.0.1, a free port by default). */
export async function startMockToolServer(
  scenario: ToolScenario | ToolScenarioInput = {},
  options: MockToolServerOptions & { host?: string; port?: number } = {},
): Promise<RunningMockToolServer> {
  const { host = '127.0.0.1', port = 0, ...rest } = options;
  let otherOrigin: string | undefined;
  const built = buildMockToolServer(scenario, { host, ...rest, otherOrigin: () => otherOrigin });
  await built.app.listen({ host, port });
  const { address, shown } = listeningOrigin(built.app);
  // Fault endpoint other-origin: a second port serving the same routes, announced for POSTs.
  let second: Server | undefined;
  if (built.scenario.faults.endpoint === 'other-origin') {
    const server = nodeHttp.createServer((req, res) => built.app.server.emit('request', req, res));
    second = server;
    await new Promise<void>((resolve) => server.listen({ host: address.address, port: 0 }, resolve));
    otherOrigin = `http://${shown}:${(server.address() as AddressInfo).port}`;
  }
  return {
    url: `http://${shown}:${address.port}${MOCK_SSE_PATH}`,
    journal: () => built.journal.entries(),
    live: built.journal,
    close: async () => {
      second?.closeAllConnections();
      second?.close();
      await built.app.close();
    },
  };
}
