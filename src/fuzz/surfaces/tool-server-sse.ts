import type { ClientRequest, Agent as HttpAgent } from 'node:http';
import fc from 'fast-check';
import { SESSION_HEADER, SESSION_QUERY_PARAM } from '../../protocol/mcp/index.js';
import { createFrameDecoder } from '../../protocol/sse/index.js';
import { type RunningToolServer, startToolServer } from '../../servers/tools/index.js';
import { nodeHttp } from '../../transports/node-http.js';
import { arbMessageTemplate, type RpcMessage, renderMessages } from '../mutations/jsonrpc.js';
import {
  describeExpectation,
  type Expectation,
  expectForBytes,
  expectForPost,
  matchReplies,
  type PostExpectation,
  type SessionNamed,
} from '../oracles/jsonrpc.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

const { Agent, get, request } = nodeHttp;

/*
 * The reference tool server over HTTP+SSE: one `startToolServer` (port 0, no keep-alive)
 * with a few long-lived sessions on real `GET /sse` streams. A case POSTs one body to a
 * live session, to none, to an unknown one, to one closed earlier, or to a session opened
 * for the case and closed after it. The status must be the documented one (202, 400 with
 * {"error"}, 413, 404), the JSON-RPC answer must arrive on the named session's stream and
 * on no other, every session must still answer a ping, and no call may be left in flight.
 */

/** docs/tool-server.md: a body over 4 MiB is answered 413. */
export const BODY_LIMIT = 4 * 1024 * 1024;
const SESSIONS = 3;
/** A reply or a stream event not there by then is missing (well below the 5 s case limit). */
const DEADLINE_MS = 2_000;
const SETTLE_MS = 30;
const CLOSED_KEPT = 20;
const ALIVE_PREFIX = 'wirecheck-alive#';

type Target =
  | 'query'
  | 'header'
  | 'query and another header'
  | 'empty query, header'
  | 'none'
  | 'unknown'
  | 'closed'
  | 'opened for the case'
  | 'wrong path';

export interface SseCase {
  message: RpcMessage;
  target: Target;
  /** Which long-lived session (modulo their number). */
  session: number;
  /** An id no session has, for `unknown`. */
  unknownId: string;
  contentType: string | undefined;
}

const TARGETS: readonly { weight: number; arbitrary: fc.Arbitrary<Target> }[] = [
  { weight: 20, arbitrary: fc.constant('query') },
  { weight: 3, arbitrary: fc.constant('header') },
  { weight: 2, arbitrary: fc.constant('query and another header') },
  { weight: 1, arbitrary: fc.constant('empty query, header') },
  { weight: 2, arbitrary: fc.constant('none') },
  { weight: 2, arbitrary: fc.constant('unknown') },
  { weight: 2, arbitrary: fc.constant('closed') },
  { weight: 2, arbitrary: fc.constant('opened for the case') },
  { weight: 1, arbitrary: fc.constant('wrong path') },
];

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
  'application/vnd.api+json',
  'application/merge-patch+json',
];
const OTHER_TYPES = [
  undefined,
  'text/plain',
  'text/json',
  'application/jsonx',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
];

const arbContentType = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_TYPES) },
);

const encoder = new TextEncoder();

/** Bodies around the 4 MiB limit: a ping padded with JSON white space. */
const arbSized: fc.Arbitrary<RpcMessage> = fc.integer({ min: -2, max: 2 }).map((delta) => {
  const ping = encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: 'sized', method: 'ping' }));
  const body = new Uint8Array(BODY_LIMIT + delta).fill(0x20);
  body.set(ping, body.length - ping.length);
  return {
    what: `a ping padded to ${delta >= 0 ? '4 MiB + ' : '4 MiB - '}${Math.abs(delta)} bytes`,
    body,
    slow: false,
  };
});

const arbMessage: fc.Arbitrary<RpcMessage> = fc.oneof(
  { weight: 200, arbitrary: arbMessageTemplate.map((t) => renderMessages([t])[0] as RpcMessage) },
  { weight: 1, arbitrary: arbSized },
);

function shown(bytes: Uint8Array): string {
  const text = JSON.stringify(Buffer.from(bytes.subarray(0, 300)).toString('latin1'));
  return bytes.length > 300 ? `${text}... (${bytes.length} bytes)` : text;
}

export const arbSseCase: fc.Arbitrary<SseCase> = fc
  .record({
    message: arbMessage,
    target: fc.oneof(...TARGETS),
    session: fc.nat({ max: SESSIONS - 1 }),
    unknownId: fc.oneof(
      fc.uuid(),
      fc.constantFrom('x', '0', 'null', '../sse', 'A'.repeat(300), '%00', 'id with spaces', 'é'),
    ),
    contentType: arbContentType,
  })
  .map((c) =>
    Object.assign(c, {
      [fc.toStringMethod]: () =>
        `{POST to ${c.target}${c.target === 'unknown' ? ` ${JSON.stringify(c.unknownId.slice(0, 40))}` : ''} (session ${c.session}), content-type ${JSON.stringify(c.contentType)}: ${c.message.what}: ${shown(c.message.body)}}`,
    }),
  );

// ---------------------------------------------------------------------------------------
// A client session: one GET /sse stream, its endpoint and the messages it carried.

function fail(message: string): never {
  throw new FuzzViolation(message);
}

class StreamSession {
  readonly messages: unknown[] = [];
  readonly problems: string[] = [];
  ended = false;
  onEvent: (() => void) | undefined;

  private constructor(
    readonly id: string,
    readonly endpoint: string,
    private readonly req: ClientRequest,
  ) {}

  static open(origin: string): Promise<StreamSession> {
    return new Promise((resolve, reject) => {
      let session: StreamSession | undefined;
      const timer = setTimeout(() => {
        req.destroy();
        reject(new FuzzViolation(`GET /sse sent no endpoint event within ${DEADLINE_MS} ms`));
      }, DEADLINE_MS);
      const req = get(`${origin}/sse`, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
        if (res.statusCode !== 200) {
          clearTimeout(timer);
          req.destroy();
          reject(new FuzzViolation(`GET /sse answered ${res.statusCode}, not 200`));
          return;
        }
        const decoder = createFrameDecoder({
          onFrame(frame) {
            if (session === undefined) {
              clearTimeout(timer);
              const url = new URL(frame.data, origin);
              const id = url.searchParams.get(SESSION_QUERY_PARAM);
              if (frame.event !== 'endpoint' || id === null) {
                req.destroy();
                reject(
                  new FuzzViolation(
                    `the first event of a stream is not an endpoint: ${JSON.stringify(frame)}`,
                  ),
                );
                return;
              }
              session = new StreamSession(id, `${url.pathname}${url.search}`, req);
              resolve(session);
              return;
            }
            if (frame.event !== 'message') {
              session.problems.push(
                `an event ${JSON.stringify(frame.event)} on the stream: ${frame.data.slice(0, 200)}`,
              );
            } else {
              try {
                session.messages.push(JSON.parse(frame.data));
              } catch {
                session.problems.push(`a message event that is not JSON: ${frame.data.slice(0, 200)}`);
              }
            }
            session.onEvent?.();
          },
          onInvalidLine(line) {
            session?.problems.push(`an invalid SSE line: ${JSON.stringify(line.slice(0, 200))}`);
          },
        });
        res.on('data', (chunk: Buffer) => decoder.feed(chunk));
        res.on('close', () => {
          if (session !== undefined) {
            session.ended = true;
            session.onEvent?.();
          }
        });
      });
      req.on('error', (e) => {
        clearTimeout(timer);
        if (session === undefined) reject(e);
        else session.ended = true;
      });
    });
  }

  close(): void {
    this.ended = true;
    this.req.destroy();
  }
}

interface Posted {
  status: number;
  contentType: string | undefined;
  body: string;
}

function post(
  agent: HttpAgent,
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}${path}`,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.setTimeout(DEADLINE_MS * 2, () => req.destroy(new Error(`no answer within ${DEADLINE_MS * 2} ms`)));
    // A server that answers 413 early may reset while the body is still being sent.
    req.on('error', reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------
// The surface.

/** What the surface needs of a running server. */
export type SseServer = Pick<RunningToolServer, 'origin' | 'sessionCount' | 'inFlightCount' | 'close'>;

export interface ToolServerSseOptions {
  /** Start the server under test (default `startToolServer`); a test passes a broken one. */
  start?: (options: { host: string; port: number; keepAliveMs: number }) => Promise<SseServer>;
}

interface Aim {
  path: string;
  headers: Record<string, string>;
  named: SessionNamed;
  /** The session whose stream gets the answer when the POST is accepted. */
  target: StreamSession | undefined;
  pathKind: 'message path' | 'other';
}

export function toolServerSseSurface(options: ToolServerSseOptions = {}): FuzzSurface<SseCase> {
  const start = options.start ?? startToolServer;
  return {
    name: 'tool-server-sse',
    description:
      'reference tool server over HTTP+SSE (real sockets, several sessions): the same JSON-RPC inputs POSTed to live, missing, unknown and closed sessions with odd content types and sizes get the documented status (202, 400 {"error"}, 413, 404), the answer on the right stream only, and every session still answers a ping',
    async open() {
      const server = await start({ host: '127.0.0.1', port: 0, keepAliveMs: 0 });
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const sessions: StreamSession[] = [];
      const closedIds: string[] = [];
      const teardown = async () => {
        for (const s of sessions) s.close();
        agent.destroy();
        await server.close();
      };
      let probe = 0;
      let dirty = false;

      const untilDeallocated = async (count: number, what: string) => {
        const deadline = performance.now() + DEADLINE_MS;
        while (server.sessionCount() > count) {
          if (performance.now() > deadline)
            fail(`${what}: the server still counts its session ${DEADLINE_MS} ms after the stream closed`);
          await new Promise((r) => setTimeout(r, 2));
        }
      };
      const openAndClose = async () => {
        const s = await StreamSession.open(server.origin);
        s.close();
        await untilDeallocated(sessions.length, 'a session closed by the client');
        closedIds.push(s.id);
        if (closedIds.length > CLOSED_KEPT) closedIds.shift();
      };

      try {
        for (let i = 0; i < SESSIONS; i++) sessions.push(await StreamSession.open(server.origin));
        await openAndClose();
      } catch (e) {
        await teardown();
        throw e;
      }

      const aim = (c: SseCase, fresh: StreamSession | undefined): Aim => {
        const at = sessions[c.session % sessions.length] as StreamSession;
        const other = sessions[(c.session + 1) % sessions.length] as StreamSession;
        const q = (id: string) => `/messages?${SESSION_QUERY_PARAM}=${encodeURIComponent(id)}`;
        const base = { headers: {}, pathKind: 'message path' as const };
        switch (c.target) {
          case 'query':
            return { ...base, path: at.endpoint, named: 'open', target: at };
          case 'header':
            return {
              ...base,
              path: '/messages',
              headers: { [SESSION_HEADER]: at.id },
              named: 'open',
              target: at,
            };
          case 'query and another header':
            // docs/tool-server.md: the query wins when both are given.
            return {
              ...base,
              path: q(at.id),
              headers: { [SESSION_HEADER]: other.id },
              named: 'open',
              target: at,
            };
          case 'empty query, header':
            return {
              ...base,
              path: q(''),
              headers: { [SESSION_HEADER]: at.id },
              named: 'empty query, open header',
              target: at,
            };
          case 'none':
            return { ...base, path: '/messages', named: 'none', target: undefined };
          case 'unknown':
            return { ...base, path: q(c.unknownId), named: 'unknown', target: undefined };
          case 'closed':
            return {
              ...base,
              path: q(closedIds[c.session % closedIds.length] as string),
              named: 'closed',
              target: undefined,
            };
          case 'opened for the case':
            return { ...base, path: (fresh as StreamSession).endpoint, named: 'open', target: fresh };
          case 'wrong path':
            return {
              ...base,
              path: at.endpoint.replace('/messages', '/message'),
              named: 'open',
              target: undefined,
              pathKind: 'other',
            };
        }
      };

      return {
        arbitrary: arbSseCase,
        async check(c) {
          // After a failed case its late answers may still come: let them land, then forget them.
          if (dirty) await new Promise((r) => setTimeout(r, AFTER_FAILURE_MS));
          dirty = true;
          const fresh =
            c.target === 'opened for the case' ? await StreamSession.open(server.origin) : undefined;
          const live = fresh === undefined ? sessions : [...sessions, fresh];
          try {
            for (const s of live) s.messages.length = 0;
            const a = aim(c, fresh);
            const expectedPost = expectForPost({
              path: a.pathKind,
              session: a.named,
              contentType: c.contentType,
              bodyBytes: c.message.body.length,
              bodyLimit: BODY_LIMIT,
            });
            const headers: Record<string, string> = { ...a.headers };
            if (c.contentType !== undefined) headers['content-type'] = c.contentType;
            let answer: Posted;
            try {
              answer = await post(agent, server.origin, a.path, headers, c.message.body);
            } catch (e) {
              fail(
                `the POST failed without an HTTP answer (${(e as Error).message}); expected ${expectedPost.statuses.join(' or ')} (${expectedPost.rule})`,
              );
            }
            judgeStatus(answer, expectedPost);
            const onStream: Expectation | undefined =
              answer.status === 202 ? expectForBytes(c.message.body, { blank: 'parse error' }) : undefined;
            await judgeStreams(live, a.target, onStream, c.message.slow);
            if (server.inFlightCount() !== 0) {
              fail(`${server.inFlightCount()} call(s) still in flight after every reply arrived`);
            }
            dirty = false;
          } finally {
            if (fresh !== undefined) {
              fresh.close();
              await untilDeallocated(sessions.length, 'the session opened for the case');
              closedIds.push(fresh.id);
              if (closedIds.length > CLOSED_KEPT) closedIds.shift();
            }
          }
        },
        close: teardown,
      };

      /** Ping every live session; each stream must carry its expected answers, its ping's, and nothing else. */
      async function judgeStreams(
        live: readonly StreamSession[],
        target: StreamSession | undefined,
        onStream: Expectation | undefined,
        slow: boolean,
      ): Promise<void> {
        const pings = live.map(() => `${ALIVE_PREFIX}${probe++}`);
        await Promise.all(
          live.map(async (s, i) => {
            const answer = await post(
              agent,
              server.origin,
              s.endpoint,
              { 'content-type': 'application/json' },
              encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: pings[i], method: 'ping' })),
            ).catch((e: Error) => fail(`a ping to session ${s.id} failed: ${e.message}`));
            if (answer.status !== 202)
              fail(`a ping to session ${s.id} was answered ${answer.status}: ${answer.body.slice(0, 200)}`);
          }),
        );
        const expectedOf = (s: StreamSession) => (s === target && onStream !== undefined ? [onStream] : []);
        const verdictOf = (s: StreamSession, i: number): string | undefined => {
          if (s.problems.length > 0) return s.problems[0];
          const alive = s.messages.filter((m) => (m as { id?: unknown } | null)?.id === pings[i]);
          if (alive.length !== 1) return alive.length === 0 ? 'not there' : `answered ${alive.length} times`;
          // Pings of earlier cases that failed before their answers came are no answers of this one.
          const rest = s.messages.filter((m) => m !== alive[0] && !isProbe(m));
          const expected = expectedOf(s);
          const matching = matchReplies(expected, rest);
          if (matching.ok) return undefined;
          const where =
            s === target ? 'the session the POST named' : 'another session (nothing was POSTed for it)';
          if (matching.unexpected.length > 0) {
            return `${UNASKED} on ${where}: ${JSON.stringify(rest[matching.unexpected[0] as number]).slice(0, 400)}`;
          }
          return `on ${where}, expected ${describeExpectation(expected[0] as Expectation).slice(0, 800)}; it carried ${rest.map((m) => JSON.stringify(m).slice(0, 200)).join(', ') || 'nothing'}`;
        };
        const deadline = performance.now() + DEADLINE_MS;
        for (const [i, s] of live.entries()) {
          const ready = () => {
            const v = verdictOf(s, i);
            if (v?.startsWith(UNASKED)) fail(v);
            return v === undefined;
          };
          while (!ready()) {
            const left = deadline - performance.now();
            if (s.ended) fail(`session ${s.id}'s stream ended during the case`);
            if (left <= 0) {
              const v = verdictOf(s, i);
              fail(
                v === 'not there'
                  ? `session ${s.id} did not answer a ping within ${DEADLINE_MS} ms`
                  : `within ${DEADLINE_MS} ms: ${v}`,
              );
            }
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, left);
              s.onEvent = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            s.onEvent = undefined;
          }
        }
        if (slow) {
          await new Promise((r) => setTimeout(r, SETTLE_MS));
          for (const [i, s] of live.entries()) {
            const v = verdictOf(s, i);
            if (v !== undefined) fail(v);
          }
        }
      }
    },
  };
}

const UNASKED = 'a reply nothing asked for';
const AFTER_FAILURE_MS = 100;
const isProbe = (m: unknown): boolean => {
  const id = (m as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.startsWith(ALIVE_PREFIX);
};

function judgeStatus(answer: Posted, expected: PostExpectation): void {
  const got = `${answer.status} ${answer.contentType ?? '(no content-type)'} ${JSON.stringify(answer.body.slice(0, 300))}`;
  if (!expected.statuses.includes(answer.status)) {
    fail(`expected HTTP ${expected.statuses.join(' or ')} (${expected.rule}), got ${got}`);
  }
  if (answer.status === 202) return;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    fail(`a ${answer.status} whose body is not JSON: ${got}`);
  }
  if (typeof (body as { error?: unknown } | null)?.error !== 'string') {
    fail(`a ${answer.status} without a string "error" in its JSON body: ${got}`);
  }
}

export const toolServerSse = toolServerSseSurface();
