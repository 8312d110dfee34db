import type { AddressInfo } from 'node:net';
import fastify, { type FastifyInstance, type FastifyRequest, type HTTPMethods } from 'fastify';
import type { ToolSession } from '../../fixtures/schema.js';
import { errorResponse } from '../../protocol/jsonrpc/index.js';
import { SESSION_QUERY_PARAM } from '../../protocol/mcp/sse-events.js';
import { STREAMABLE_HTTP_HEADERS } from '../../protocol/mcp/streamable-http.js';
import { redactHeaders, redactTarget, secretsOf } from '../../recording/redact.js';
import {
  BODY_BUDGET_FACTOR,
  BodyBudget,
  limitRequestTime,
  REQUEST_TIMEOUT_MS,
} from '../../servers/http/body-budget.js';
import { BODY_LIMIT_BYTES } from '../../servers/http/body-limit.js';
import { allowOrigin, answeredPreflight, type CorsPolicy, isPreflight } from '../../servers/http/cors.js';
import { type HostPolicy, hostPolicy, hostRefusal, originRefusal } from '../../servers/http/host-guard.js';
import { SESSION_QUEUE_LIMIT_BYTES } from '../../servers/http/outbound-queue.js';
import { type RequiredHeaders, requiredHeaderRefusal } from '../../servers/http/required-headers.js';
import { STREAMABLE_BODY_LIMIT_BYTES } from '../../servers/http/streamable-endpoint.js';
import { BusyBody, keepBodiesAsText, OversizeBody } from './http-body.js';
import { messageEntry, ToolJournal, type ToolJournalHttpInput, UNNAMED_SESSION } from './journal.js';
import { secretsOfRequest } from './journal-secrets.js';
import { type ToolReplayPlan, toolReplayPlanOf } from './replay-plan.js';
import { ReplayToolSession } from './replay-session.js';
import {
  type ResolvedToolScenario,
  type ToolScenario,
  type ToolScenarioInput,
  toolScenario,
} from './scenario.js';
import { MockToolSession, type SessionChannel } from './session.js';
import type { MockSession, MockToolServerOptions } from './sse.js';

/** How many closed session ids are remembered, to tell "closed" from "unknown". */
export const CLOSED_IDS_KEPT = 10_000;

/**
 * What a page may do with the HTTP mocks once its Origin passed the guard (a loopback page, or
 * one of `allowedHosts`): the methods of MCP's HTTP transports, and reading the session id
 * (Streamable HTTP) and the version and challenge headers a browser client acts on.
 */
export const TOOL_MOCK_CORS: CorsPolicy = {
  methods: 'GET, POST, DELETE',
  exposed: 'mcp-session-id, mcp-protocol-version, www-authenticate',
};

/**
 * What both HTTP mocks (SSE and Streamable HTTP) do before any route: refuse DNS rebinding
 * and pages of other sites with 403 (MCP: servers validate Origin), a request without the
 * `required` headers with 401 (a mock behind a token), a body over `bodyLimit` with 413, one that
 * would pass the bodies in flight's budget (4 x `bodyLimit`) with 503 before it is read, learn
 * the request's credentials for the journal to scrub, and keep bodies as text, so the journal
 * records what arrived before anything validates it. A refused request to one of the mock's
 * routes is journaled too, with its status: a POST as the message it carried (the start of it,
 * past the limit), a GET as a stream asked for, a DELETE as a session end asked for. A page the
 * guard lets through gets CORS answers (TOOL_MOCK_CORS): its preflight to a route of the mock
 * is answered 204 before any other check (a browser sends no credentials with it).
 */
export function prepareMockApp(
  app: FastifyInstance,
  hosts: HostPolicy,
  journal: ToolJournal,
  transport: 'sse' | 'http',
  required?: RequiredHeaders,
  bodyLimit: number = transport === 'sse' ? BODY_LIMIT_BYTES : STREAMABLE_BODY_LIMIT_BYTES,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    headersArrived.set(request.raw, performance.now());
    // Credentials a request carries are scrubbed from every journal entry, bodies included.
    const secrets = secretsOfRequest(request.headers, request.url);
    requestSecrets.set(request.raw, secrets);
    journal.learnSecrets(secrets);
    if (
      hostRefusal(hosts, request.headers.host) === undefined &&
      originRefusal(hosts, request.headers.origin) === undefined
    ) {
      if (isPreflight(request) && routed(app, request) && answeredPreflight(request, reply, TOOL_MOCK_CORS))
        return;
      allowOrigin(request, reply, TOOL_MOCK_CORS);
    }
    done();
  });
  // After the body is read (bounded by bodyLimit), so that a refused POST is journaled with it.
  app.addHook('preHandler', (request, reply, done) => {
    const refusal = hostRefusal(hosts, request.headers.host) ?? originRefusal(hosts, request.headers.origin);
    if (refusal !== undefined) {
      journalRefused(journal, transport, request, 403);
      return void reply.code(403).send({ error: refusal });
    }
    const denied = requiredHeaderRefusal(required, request.headers);
    if (denied !== undefined) {
      journalRefused(journal, transport, request, denied.status);
      return void reply.code(denied.status).headers(denied.headers).send({ error: denied.message });
    }
    const body = request.body;
    if ((body instanceof OversizeBody || body instanceof BusyBody) && !request.is404) {
      const status = body instanceof OversizeBody ? 413 : 503;
      journalRefused(journal, transport, request, status);
      const { problem } = body;
      // The client may still be sending the rest: the connection ends with the answer.
      void reply
        .code(status)
        .header('connection', 'close')
        // Each transport's refusal body, as its reference server answers: JSON-RPC over Streamable HTTP.
        .send(transport === 'http' ? errorResponse(null, -32000, problem) : { error: problem });
      return;
    }
    done();
  });
  keepBodiesAsText(app, bodyLimit, journal.bounds.bodyBytes, new BodyBudget(BODY_BUDGET_FACTOR * bodyLimit));
}

/** The credentials each request carried (secretsOfRequest), for the entries it causes. */
const requestSecrets = new WeakMap<object, readonly string[]>();

/** The secret values `request` carried: its journal entries are scrubbed of them whatever was learned since. */
export function secretsOfMockRequest(request: FastifyRequest): readonly string[] {
  return requestSecrets.get(request.raw) ?? [];
}

/** Whether a preflight asks for a method the mock serves at its path (else it falls to the 404). */
function routed(app: FastifyInstance, request: FastifyRequest): boolean {
  const method = String(request.headers['access-control-request-method']).toUpperCase();
  const url = request.url;
  const q = url.indexOf('?');
  return app.findRoute({ method: method as HTTPMethods, url: q < 0 ? url : url.slice(0, q) }) !== null;
}

/** A request refused before its route ran, in the journal: under the session it named, or `(none)`. */
function journalRefused(
  journal: ToolJournal,
  transport: 'sse' | 'http',
  request: FastifyRequest,
  status: number,
): void {
  // A path that is none of the mock's routes is no message, stream or session end.
  if (request.is404) return;
  const named =
    transport === 'sse'
      ? (request.query as Record<string, string | undefined>)[SESSION_QUERY_PARAM]
      : request.headers[STREAMABLE_HTTP_HEADERS.sessionId];
  const session = typeof named === 'string' && named !== '' ? named : UNNAMED_SESSION;
  const http = httpOf(request.method, request.url, status, request.headers, headersAtOf(request));
  const own = secretsOfMockRequest(request);
  if (request.method === 'POST') {
    const body = request.body;
    if (body instanceof OversizeBody || body instanceof BusyBody) {
      // Only its start was read: no value, and its size in `truncated`, as a message the journal cut.
      const entry = { session, transport, direction: 'received', kind: 'message', text: body.text } as const;
      journal.record({ ...entry, truncated: { bytes: body.bytes }, http }, own);
      return;
    }
    journal.record(
      messageEntry(typeof body === 'string' ? body : '', { session, transport, direction: 'received', http }),
      own,
    );
    return;
  }
  journal.record(
    {
      session,
      transport,
      direction: 'received',
      kind: request.method === 'DELETE' ? 'closed' : 'stream-open',
      text: `${request.method} ${redactTarget(request.url)}`,
      http,
    },
    own,
  );
}

/** When each request's headers arrived (performance.now()), before its body. */
const headersArrived = new WeakMap<object, number>();

/** When `request`'s headers arrived (performance.now()): the journal dates its body's wait from it. */
export function headersAtOf(request: FastifyRequest): number | undefined {
  return headersArrived.get(request.raw);
}

/** The plans of the recordings to replay, one per recording (sessions take them in turn). */
export function replayPlansOf(replay: ToolSession | readonly ToolSession[] | undefined): ToolReplayPlan[] {
  if (replay === undefined) return [];
  return (Array.isArray(replay) ? replay : [replay as ToolSession]).map(toolReplayPlanOf);
}

/** Ids of sessions that ended, the oldest forgotten past CLOSED_IDS_KEPT. */
export class ClosedIds {
  private readonly ids = new Set<string>();
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > CLOSED_IDS_KEPT) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
}

/** `http://<Host header>`, or the listening address when the request named none. */
export function originOf(hostHeader: string | undefined, app: FastifyInstance): string {
  if (hostHeader !== undefined && hostHeader !== '') return `http://${hostHeader}`;
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/**
 * The journal's view of an HTTP request: credentials redacted (headers by name, query
 * parameters, known values). `headersAt`: when its headers arrived (headersAtOf), from which
 * the journal works out how long its body took.
 */
export function httpOf(
  method: string,
  url: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  headersAt?: number,
): ToolJournalHttpInput {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  const secrets = secretsOf(flat);
  const shown = { method, url: redactTarget(url, secrets), status, headers: redactHeaders(flat, secrets) };
  return headersAt === undefined ? shown : { ...shown, headersAt };
}

/** `http://ADDRESS:PORT` of a listening app (IPv6 in brackets). */
export function listeningOrigin(app: FastifyInstance): {
  origin: string;
  address: AddressInfo;
  shown: string;
} {
  const address = app.server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { origin: `http://${shown}:${address.port}`, address, shown };
}

/** What the two HTTP mocks (SSE and Streamable HTTP) set up alike before their routes. */
export interface MockHttpBase {
  readonly scenario: ResolvedToolScenario;
  readonly journal: ToolJournal;
  /** The fastify app (never listening yet), with prepareMockApp's hooks. */
  readonly app: FastifyInstance;
  /** Sessions open now, by id (a closed session is forgotten: its memory is released). */
  readonly sessions: Map<string, MockSession>;
  readonly closedIds: ClosedIds;
  /** Bytes waiting for one client past which its stream is cut (SESSION_QUEUE_LIMIT_BYTES). */
  readonly queueLimit: number;
  readonly log: (line: string) => void;
  /** The number of the next session (0 first): it seeds the session's own random choices. */
  nextIndex(): number;
  /** The session behind a channel: the scenario's, or the next recording replayed (in turn). */
  createSession(channel: SessionChannel, index: number): MockSession;
}

/** Options of the HTTP mocks that only tests set. */
export interface MockHttpInternals {
  /**
   * Ms a request may take to arrive whole, headers and body; past it Node answers 408 and
   * closes (default REQUEST_TIMEOUT_MS, 60 s).
   */
  readonly requestTimeoutMs?: number;
}

export function mockHttpBase(
  input: ToolScenario | ToolScenarioInput,
  options: MockToolServerOptions & MockHttpInternals,
  transport: 'sse' | 'http',
): MockHttpBase {
  const scenario = toolScenario(input, transport);
  const journal = new ToolJournal(options.onEntry, options.journalLimits);
  // Several recordings: each new session replays the next one, in turn.
  const plans = replayPlansOf(options.replay);
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = fastify({
    logger: false,
    forceCloseConnections: true,
    // A HEAD would otherwise run the GET handler: open a stream (a session) nobody reads.
    exposeHeadRoutes: false,
    // Fastify's default is none: a POST whose body stalls would hold its connection for ever.
    requestTimeout,
  });
  limitRequestTime(app.server, requestTimeout);
  prepareMockApp(app, hostPolicy(options), journal, transport, options.requireHeaders, options.bodyLimit);
  let opened = 0;
  return {
    scenario,
    journal,
    app,
    sessions: new Map(),
    closedIds: new ClosedIds(),
    queueLimit: options.sessionQueueLimit ?? SESSION_QUEUE_LIMIT_BYTES,
    log: options.log ?? (() => {}),
    nextIndex: () => opened++,
    createSession: (channel, index) =>
      plans.length === 0
        ? new MockToolSession(scenario, journal, channel, index)
        : new ReplayToolSession(
            plans[index % plans.length]!,
            scenario,
            journal,
            channel,
            { speed: options.speed ?? 1 },
            index,
          ),
  };
}
