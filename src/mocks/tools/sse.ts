import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fastify, { type FastifyInstance } from 'fastify';
import type { ToolSession } from '../../fixtures/schema.js';
import { SESSION_QUERY_PARAM, TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';
import { encodeComment, encodeFrame } from '../../protocol/sse/index.js';
import { mixSeed } from '../messages/random.js';
import { messageEntry, ToolJournal, type ToolJournalEntry } from './journal.js';
import { toolReplayPlanOf } from './replay-plan.js';
import { ReplayToolSession } from './replay-session.js';
import { type ToolScenario, type ToolScenarioInput, toolScenario } from './scenario.js';
import { MockToolSession } from './session.js';

/** Paths of the mock's SSE transport (spec "Tool server, SSE transport"). */
export const MOCK_SSE_PATH = '/sse';
export const MOCK_MESSAGES_PATH = '/messages';

export interface MockToolServerOptions {
  /** Called with every journal entry as it is recorded (e.g. to append it to a file). */
  readonly onEntry?: (entry: ToolJournalEntry) => void;
  /** Serve this recorded session (an SSE or stdio recording) to every client, instead of the scenario's answers. */
  readonly replay?: ToolSession;
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
  /** Sessions opened so far, by id. */
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
  const scenario = toolScenario(input as ToolScenarioInput);
  const journal = new ToolJournal(options.onEntry);
  const streams = new Map<string, OpenStream>();
  const sessions = new Map<string, MockSession>();
  const plan = options.replay === undefined ? undefined : toolReplayPlanOf(options.replay);
  const { faults } = scenario;
  const app = fastify({ logger: false, forceCloseConnections: true });

  // Bodies stay text: the journal records what arrived before anything validates it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.get(MOCK_SSE_PATH, (request, reply) => {
    const index = sessions.size;
    const id = `wc-${mixSeed(scenario.seed, index).toString(16).padStart(8, '0')}-${index}`;
    journal.record({
      session: id,
      transport: 'sse',
      direction: 'received',
      kind: 'stream-open',
      text: `${request.method} ${request.url}`,
      http: { method: request.method, url: request.url, status: 200, headers: flatHeaders(request.headers) },
    });
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
    const channel = {
      session: id,
      transport: 'sse' as const,
      write: (text: string) => {
        if (stream.ended) return;
        if (faults.commentFrames) raw.write(encodeComment('wirecheck comment'));
        raw.write(encodeFrame(TOOL_SSE_EVENTS.message, text));
      },
      writeRaw: (bytes: Uint8Array) => {
        if (!stream.ended) raw.write(bytes);
      },
      close: () => endStream(stream),
    };
    (stream as { session: MockSession }).session =
      plan === undefined
        ? new MockToolSession(scenario, journal, channel, index)
        : new ReplayToolSession(plan, scenario, journal, channel, { speed: options.speed ?? 1 }, index);
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
        : setInterval(() => {
            if (!stream.ended) raw.write(encodeComment('keep-alive'));
          }, faults.keepAliveMs);
    raw.on('close', () => {
      clearInterval(keepAlive);
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
    const query = request.query as Record<string, string | undefined>;
    const id = query[SESSION_QUERY_PARAM] ?? '';
    const body = typeof request.body === 'string' ? request.body : '';
    const stream = streams.get(id);
    // Spec "Errors": a POST with no active SSE stream gets 400 and a JSON object with `error`.
    const status = stream === undefined || stream.ended ? 400 : faults.postStatus;
    const entry = messageEntry(body, {
      session: stream === undefined ? id || '(none)' : id,
      transport: 'sse',
      direction: 'received',
      http: { method: 'POST', url: request.url, status, headers: flatHeaders(request.headers) },
    });
    journal.record(entry);
    if (stream === undefined || stream.ended) {
      const why =
        stream === undefined ? `no session ${JSON.stringify(id)}` : `the stream of session ${id} is closed`;
      reply.code(400).send({ error: `no active SSE stream: ${why}` });
      return;
    }
    reply.code(status).type('text/plain; charset=utf-8').send('Accepted');
    // The reply goes on the stream after the POST is answered, as the spec's sequence shows.
    setImmediate(() => {
      if (entry.parseError !== undefined) stream.session.receiveUnparseable(entry.parseError);
      else stream.session.receive(entry.value);
    });
  });

  function endStream(stream: OpenStream): void {
    if (stream.ended) return;
    stream.ended = true;
    stream.raw.end();
  }

  app.addHook('preClose', (done) => {
    for (const s of streams.values()) {
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
  const built = buildMockToolServer(scenario, { ...rest, otherOrigin: () => otherOrigin });
  await built.app.listen({ host, port });
  const address = built.app.server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // Fault endpoint other-origin: a second port serving the same routes, announced for POSTs.
  let second: Server | undefined;
  if (built.scenario.faults.endpoint === 'other-origin') {
    const server = createServer((req, res) => built.app.server.emit('request', req, res));
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

function originOf(hostHeader: string | undefined, app: FastifyInstance): string {
  if (hostHeader !== undefined && hostHeader !== '') return `http://${hostHeader}`;
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
