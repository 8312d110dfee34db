import type { AddressInfo } from 'node:net';
import fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { ToolSession } from '../../fixtures/schema.js';
import { SESSION_QUERY_PARAM } from '../../protocol/mcp/sse-events.js';
import { STREAMABLE_HTTP_HEADERS } from '../../protocol/mcp/streamable-http.js';
import { redactHeaders, redactTarget, secretsOf } from '../../recording/redact.js';
import { type HostPolicy, hostPolicy, hostRefusal, originRefusal } from '../../servers/http/host-guard.js';
import { SESSION_QUEUE_LIMIT_BYTES } from '../../servers/http/outbound-queue.js';
import { type RequiredHeaders, requiredHeaderRefusal } from '../../servers/http/required-headers.js';
import { messageEntry, ToolJournal, type ToolJournalEntry } from './journal.js';
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
 * What both HTTP mocks (SSE and Streamable HTTP) do before any route: refuse DNS rebinding
 * and pages of other sites with 403 (MCP: servers validate Origin), a request without the
 * `required` headers with 401 (a mock behind a token), learn the request's credentials
 * for the journal to scrub, and keep bodies as text, so the journal records what arrived before
 * anything validates it. A refused request to one of the mock's routes is journaled too, with
 * its status: a POST as the message it carried, a GET as a stream asked for, a DELETE as a
 * session end asked for.
 */
export function prepareMockApp(
  app: FastifyInstance,
  hosts: HostPolicy,
  journal: ToolJournal,
  transport: 'sse' | 'http',
  required?: RequiredHeaders,
): void {
  app.addHook('onRequest', (request, _reply, done) => {
    headersArrived.set(request.raw, performance.now());
    // Credentials a request carries are scrubbed from every journal entry, bodies included.
    journal.learnSecrets(secretsOfRequest(request.headers, request.url));
    done();
  });
  // After the body is read (bounded by the app's bodyLimit), so that a refused POST is journaled with it.
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
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
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
  const session = typeof named === 'string' && named !== '' ? named : '(none)';
  const http = httpOf(request.method, request.url, status, request.headers, bodyMsOf(request));
  if (request.method === 'POST') {
    const body = typeof request.body === 'string' ? request.body : '';
    journal.record(messageEntry(body, { session, transport, direction: 'received', http }));
    return;
  }
  journal.record({
    session,
    transport,
    direction: 'received',
    kind: request.method === 'DELETE' ? 'closed' : 'stream-open',
    text: `${request.method} ${redactTarget(request.url)}`,
    http,
  });
}

/** When each request's headers arrived (performance.now()), before its body. */
const headersArrived = new WeakMap<object, number>();

/** Ms since `request`'s headers arrived: recorded with its body, how long the body took. */
export function bodyMsOf(request: FastifyRequest): number | undefined {
  const at = headersArrived.get(request.raw);
  return at === undefined ? undefined : performance.now() - at;
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
 * parameters, known values). `bodyMs`: how long its body took to arrive after its headers
 * (bodyMsOf when the body is recorded).
 */
export function httpOf(
  method: string,
  url: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyMs?: number,
): NonNullable<ToolJournalEntry['http']> {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  const secrets = secretsOf(flat);
  const shown = { method, url: redactTarget(url, secrets), status, headers: redactHeaders(flat, secrets) };
  return bodyMs === undefined ? shown : { ...shown, bodyMs: Math.round(bodyMs * 1000) / 1000 };
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

export function mockHttpBase(
  input: ToolScenario | ToolScenarioInput,
  options: MockToolServerOptions,
  transport: 'sse' | 'http',
): MockHttpBase {
  const scenario = toolScenario(input, transport);
  const journal = new ToolJournal(options.onEntry, options.journalLimits);
  // Several recordings: each new session replays the next one, in turn.
  const plans = replayPlansOf(options.replay);
  const app = fastify({ logger: false, forceCloseConnections: true });
  prepareMockApp(app, hostPolicy(options), journal, transport, options.requireHeaders);
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
