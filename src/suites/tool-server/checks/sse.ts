import { randomUUID } from 'node:crypto';
import { type Check, CheckFailure } from '../../../harness/check.js';
import { request } from '../../../protocol/jsonrpc/index.js';
import { METHODS, SESSION_HEADER } from '../../../protocol/mcp/index.js';
import type { PostOutcome } from '../channel.js';
import type { ToolServerCtx } from '../context.js';
import { frameEvidence } from '../evidence.js';
import { nextId } from '../peer.js';
import { delay, exchange, initializeParams } from '../rpc.js';
import { type SseChannel, sessionOf, withSession } from '../sse-channel.js';
import { minimalArguments, probeTool } from '../tool-choice.js';
import { brief, CHECK_MS, CLAUSES, failWith } from './common.js';

/** How long a reply that should not come is waited for. */
const QUIET_MS = 500;
/** How long after closing a stream the server is given to notice before the closed session is used. */
const CLOSE_SETTLE_MS = 200;

function describePost(p: PostOutcome | undefined): string {
  if (p === undefined) return 'nothing sent';
  if (p.status === undefined) return p.problem ?? 'no response';
  const body = p.body.length > 200 ? `${p.body.slice(0, 200)}...` : p.body;
  return `HTTP ${p.status}${body === '' ? '' : ` ${body}`}`;
}

/** The first POST of a session (initialize): its HTTP response and where its reply went. */
function firstPost(ctx: ToolServerCtx) {
  return ctx.shared('first-post', async () => {
    const channel = await ctx.openSession('first-post', false);
    const ex = await exchange(channel, METHODS.initialize, initializeParams(), ctx.replyMs);
    return { channel, ex };
  });
}

/** Whether a POST response body is itself the JSON-RPC reply to `id`. */
function bodyIsReply(body: string, id: number): boolean {
  try {
    const v = JSON.parse(body) as { id?: unknown };
    return v.id === id;
  } catch {
    return false;
  }
}

interface ForeignPost {
  readonly what: string;
  readonly id: number;
  readonly outcome: PostOutcome;
}

/**
 * POSTs that no open stream should answer, with an observer session open meanwhile: no
 * sessionId, an unknown one, a closed session's, and a call in flight when its stream
 * closes. Shared by the 400 rule and the routing check.
 */
function foreignPosts(ctx: ToolServerCtx) {
  return ctx.shared('foreign-posts', async () => {
    const observer = await ctx.openSession('observer', true);
    const endpoint = observer.endpoint()!;
    const posts: ForeignPost[] = [];
    const ping = async (what: string, url: URL) => {
      const id = nextId();
      const outcome = await observer.postTo(url, JSON.stringify(request(id, METHODS.ping)));
      posts.push({ what, id, outcome });
    };
    await ping('a POST without a sessionId', withSession(endpoint, undefined));
    await ping('a POST for an unknown sessionId', withSession(endpoint, randomUUID()));
    const closed = await ctx.openSession('closed', true);
    const closedEndpoint = closed.endpoint()!;
    await closed.close();
    await delay(CLOSE_SETTLE_MS);
    await ping('a POST for a closed session', closedEndpoint);
    // A call in flight when its stream closes: its reply must not surface elsewhere.
    const inFlight = await ctx.openSession('in-flight', true);
    const tool = probeTool(await ctx.tools());
    const id = nextId();
    const sending = inFlight.sendText(
      JSON.stringify(
        tool === undefined
          ? request(id, METHODS.ping)
          : request(id, METHODS.toolsCall, { name: tool.name, arguments: minimalArguments(tool) }),
      ),
    );
    await inFlight.close();
    await sending;
    await delay(QUIET_MS);
    return { observer, posts, inFlightId: id, closed, inFlight };
  });
}

function isErrorBody(p: PostOutcome): boolean {
  try {
    const v = JSON.parse(p.body) as { error?: unknown };
    return typeof v === 'object' && v !== null && typeof v.error === 'string';
  } catch {
    return false;
  }
}

export const sseChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.sse.stream-response',
    clause: `${CLAUSES.sseTransport} (GET /sse: HTTP 200 event stream)`,
    description:
      'GET on the stream URL with Accept: text/event-stream answers HTTP 200 with content type text/event-stream.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.openStream('stream');
      try {
        const type = String(channel.headers['content-type'] ?? '');
        if (channel.status !== 200 || !type.toLowerCase().startsWith('text/event-stream')) {
          throw new CheckFailure(
            'the stream response is not an HTTP 200 event stream',
            '200 text/event-stream',
            `${channel.status} ${type}`,
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
  {
    id: 'tool-server.sse.endpoint-first',
    clause: `${CLAUSES.session} (none -> open: first event endpoint with sessionId); ${CLAUSES.sseEvents}`,
    description:
      'The first event of the stream is `endpoint`, whose data is the POST path (or URL) carrying a sessionId query parameter.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.openStream('endpoint');
      try {
        const first = await channel.firstEvent(ctx.httpMs);
        const expected = 'event: endpoint, data: /messages?sessionId=<id>';
        if (first === undefined) {
          throw new CheckFailure(
            `no event within ${ctx.httpMs} ms`,
            expected,
            'nothing',
            frameEvidence('stream', channel),
          );
        }
        const index = channel.frames.indexOf(first);
        if (first.event !== 'endpoint') {
          throw new CheckFailure(
            `the first event is ${JSON.stringify(first.event ?? 'message')}, not endpoint`,
            expected,
            first.data.slice(0, 300),
            frameEvidence('stream', channel, index),
          );
        }
        if (
          channel.endpoint() === undefined ||
          sessionOf(channel) === undefined ||
          sessionOf(channel) === ''
        ) {
          throw new CheckFailure(
            'the endpoint event names no usable POST URL with a sessionId',
            expected,
            first.data.slice(0, 300),
            frameEvidence('stream', channel, index),
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
  {
    id: 'tool-server.sse.post-accepted',
    clause: `${CLAUSES.sseTransport} (POST: "HTTP 202 Accepted (a client probe treats 200 or 202 as success)")`,
    description:
      'A JSON-RPC POST to the announced endpoint of an open session is accepted with HTTP 202 (or 200).',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ex } = await firstPost(ctx);
      if (ex.post?.status !== 202 && ex.post?.status !== 200) {
        throw failWith(
          `the POST was answered ${describePost(ex.post)}`,
          'HTTP 202 (or 200)',
          describePost(ex.post),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.sse.post-202',
    clause: `${CLAUSES.sseTransport} (POST response: HTTP 202 Accepted)`,
    description: 'The POST is answered with 202 exactly (200 is accepted by probes, hence a warning).',
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ex } = await firstPost(ctx);
      if (ex.post?.status !== 202) {
        throw failWith(`the POST was answered ${describePost(ex.post)}`, 'HTTP 202', describePost(ex.post), [
          channel,
        ]);
      }
    },
  },
  {
    id: 'tool-server.sse.reply-on-stream',
    clause: `${CLAUSES.sseTransport} ("the JSON-RPC result is not in this response but on the stream"); ${CLAUSES.session}`,
    description: "The JSON-RPC reply to a POSTed request arrives on the session's stream as event `message`.",
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ex } = await firstPost(ctx);
      if (ex.reply !== undefined) {
        const frame = channel.frames.find((f) => !f.comment && f.data.includes(`"id":${ex.id}`));
        if (frame !== undefined && (frame.event ?? 'message') !== 'message') {
          throw new CheckFailure(
            `the reply came as event ${JSON.stringify(frame.event)}`,
            'event: message',
            frame.data.slice(0, 300),
            frameEvidence('stream', channel, channel.frames.indexOf(frame)),
          );
        }
        return;
      }
      const inBody = ex.post !== undefined && bodyIsReply(ex.post.body, ex.id);
      throw failWith(
        inBody
          ? 'the reply came in the POST response body, not on the stream'
          : `no reply on the stream: ${ex.why}`,
        'event: message with the reply on the stream',
        inBody ? `POST body ${ex.post?.body.slice(0, 300)}` : 'nothing',
        [channel],
      );
    },
  },
  {
    id: 'tool-server.sse.no-buffering-header',
    clause: `${CLAUSES.errors} (reverse proxy buffers the stream: send X-Accel-Buffering: no)`,
    description:
      'The stream response carries `X-Accel-Buffering: no`, so a reverse proxy does not buffer events.',
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await firstPost(ctx);
      const value = channel.headers['x-accel-buffering'];
      if (String(value ?? '').toLowerCase() !== 'no') {
        throw new CheckFailure(
          'the stream response has no X-Accel-Buffering: no header',
          'X-Accel-Buffering: no',
          value === undefined ? 'absent' : String(value),
        );
      }
    },
  },
  {
    id: 'tool-server.sse.session-header',
    clause: `${CLAUSES.objects} (Session: "carried in the query parameter sessionId ... or in the header Mcp-Session-Id")`,
    description:
      "A POST naming its session in the Mcp-Session-Id header instead of the query is accepted and answered on that session's stream.",
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const mine = await ctx.openSession('header', true);
      const other = await ctx.openSession('other', true);
      try {
        const id = nextId();
        const waiting = mine.peer.wait(id, ctx.replyMs, () => mine.gone());
        const outcome = await mine.postTo(
          withSession(mine.endpoint()!, undefined),
          JSON.stringify(request(id, METHODS.ping)),
          {
            [SESSION_HEADER]: sessionOf(mine)!,
          },
        );
        const accepted = outcome.status === 202 || outcome.status === 200;
        const got = accepted
          ? await waiting
          : await Promise.race([waiting, delay(QUIET_MS).then(() => undefined)]);
        if (got?.reply === undefined) {
          throw failWith(
            `a POST with the session in the ${SESSION_HEADER} header only was answered ${describePost(outcome)} and no reply came on the session's stream`,
            'HTTP 202 and the reply on the stream',
            describePost(outcome),
            [mine, other],
          );
        }
      } finally {
        await mine.close();
        await other.close();
      }
    },
  },
  {
    id: 'tool-server.sse.no-session-400',
    clause: `${CLAUSES.sseTransport} ("no SSE stream is active, a reference server answers HTTP 400 with a JSON object holding a string field error"); ${CLAUSES.errors}`,
    description:
      'A POST without a sessionId, for an unknown one or for a closed session is answered HTTP 400 with a JSON body {"error": "<string>"} (should: the spec states it for the reference server; the SDK answers 500 or never).',
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { posts, observer } = await foreignPosts(ctx);
      const wrong = posts.filter((p) => p.outcome.status !== 400 || !isErrorBody(p.outcome));
      if (wrong.length > 0) {
        throw failWith(
          wrong.map((p) => `${p.what} was answered ${describePost(p.outcome)}`).join('; '),
          'HTTP 400 {"error": "..."} for each',
          wrong.map((p) => `${p.what}: ${describePost(p.outcome)}`).join('\n'),
          [observer],
        );
      }
    },
  },
  {
    id: 'tool-server.sse.no-cross-session-reply',
    clause: `${CLAUSES.errors} ("Responses routed to wrong client"); ${CLAUSES.session} (closed: the server de-allocates, aborts in-flight tool tasks)`,
    description:
      "Requests POSTed without a session, for an unknown or a closed session, and a call in flight when its stream closes are never answered on another session's stream.",
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { observer, posts, inFlightId, closed, inFlight } = await foreignPosts(ctx);
      const foreign = new Map<number, string>(posts.map((p) => [p.id, p.what]));
      foreign.set(inFlightId, 'a call in flight when its stream closed');
      // Every stream the suite holds open is watched, not only the observer's.
      const watched = [observer, ...ctx.openChannels().filter((c) => c !== observer)];
      const leaks = watched.flatMap((c) =>
        c.peer.strayReplies
          .filter((r) => r.id !== null && foreign.has(r.id as number))
          .map((r) => ({ on: c.peer.label, reply: r })),
      );
      const first = leaks[0];
      if (first !== undefined) {
        throw failWith(
          `replies leaked onto another session's stream: ${leaks.map((l) => `${foreign.get(l.reply.id as number)} (on ${l.on})`).join('; ')}`,
          "no reply on any other session's stream",
          leaks.map((l) => JSON.stringify(l.reply)).join('\n'),
          [...watched, closed, inFlight],
          `"id":${first.reply.id}`,
        );
      }
    },
  },
  {
    id: 'tool-server.sse.reconnect-new-session',
    clause: `${CLAUSES.session} (closed -> open: "client issues GET /sse again": new session)`,
    description:
      'After a client closes its stream, a new GET opens a new session (a new sessionId) that works.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const first = await ctx.openSession('before-reconnect', true);
      const before = sessionOf(first);
      await first.close();
      await delay(CLOSE_SETTLE_MS);
      const again = await ctx.openSession('after-reconnect', true);
      try {
        if (sessionOf(again) === before) {
          throw failWith(
            `the new stream announced the closed session's id ${before} again`,
            'a new sessionId',
            String(sessionOf(again)),
            [first, again],
          );
        }
        const ex = await exchange(again, METHODS.ping, undefined, ctx.replyMs);
        if (ex.reply === undefined) {
          throw failWith(
            `ping on the new session got no reply: ${ex.why}`,
            'a reply on the new stream',
            'nothing',
            [first, again],
          );
        }
      } finally {
        await again.close();
      }
    },
  },
  {
    id: 'tool-server.sse.concurrent-routing',
    clause: `${CLAUSES.errors} ("Responses routed to wrong client": a registry maps each session id to its own stream)`,
    description:
      'With several sessions open, concurrent requests on each are all answered, each on its own stream.',
    level: 'must',
    timeoutMs: 60_000,
    async run(ctx) {
      const SESSIONS = 8;
      const PER_SESSION = 6;
      const sessions: SseChannel[] = await Promise.all(
        Array.from({ length: SESSIONS }, (_, i) => ctx.openSession(`s${i + 1}`, true)),
      );
      try {
        const tool = probeTool(await ctx.tools());
        const sends = sessions.flatMap((s) =>
          Array.from({ length: PER_SESSION }, (_, n) =>
            n % 2 === 1 && tool !== undefined
              ? exchange(
                  s,
                  METHODS.toolsCall,
                  { name: tool.name, arguments: minimalArguments(tool) },
                  ctx.replyMs,
                )
              : exchange(s, METHODS.ping, undefined, ctx.replyMs),
          ),
        );
        const results = await Promise.all(sends);
        await delay(100);
        const strays = sessions.filter((s) => s.peer.strayReplies.length > 0);
        if (strays.length > 0) {
          const s = strays[0]!;
          throw failWith(
            `${strays.length} session(s) received replies to requests of other sessions, e.g. ${s.peer.label}: ${JSON.stringify(s.peer.strayReplies[0])}`,
            'each reply on the stream of the session that sent the request',
            brief(s.peer.strayReplies[0]),
            sessions,
            JSON.stringify(s.peer.strayReplies[0]!.id),
          );
        }
        const unanswered = results.filter((r) => r.reply === undefined);
        if (unanswered.length > 0) {
          throw failWith(
            `${unanswered.length} of ${results.length} concurrent requests got no reply (${unanswered[0]!.why})`,
            'every request answered on its own stream',
            `${unanswered.length} unanswered`,
            sessions,
          );
        }
      } finally {
        await Promise.all(sessions.map((s) => s.close()));
      }
    },
  },
];
