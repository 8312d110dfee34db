import { randomUUID } from 'node:crypto';
import { type Check, CheckFailure, NotExercised } from '../../../harness/check.js';
import { safeParseFirstIssue } from '../../../protocol/first-bad-element.js';
import type { JsonRpcResponse } from '../../../protocol/jsonrpc/index.js';
import { request } from '../../../protocol/jsonrpc/index.js';
import {
  CallToolResult,
  METHODS,
  resultText,
  SESSION_HEADER,
  SESSION_QUERY_PARAM,
  sessionIdOf,
  sessionParamOf,
  type Tool,
} from '../../../protocol/mcp/index.js';
import type { Channel, PostOutcome } from '../channel.js';
import { SessionRefused, type ToolServerCtx } from '../context.js';
import { frameEvidence } from '../evidence.js';
import { nextId } from '../peer.js';
import { misplacedReply } from '../reply-place.js';
import {
  cancelRequest,
  delay,
  type Exchange,
  exchange,
  initialize,
  initializeParams,
  postAccepted,
} from '../rpc.js';
import { noteExchange } from '../silence.js';
import { LATE_REPLY_FACTOR, silenceMs, withLateReplies } from '../slow-call.js';
import { type SseChannel, sessionOf, withSession } from '../sse-channel.js';
import { revisionOf } from '../target.js';
import { findDiagnosticTool, minimalArguments, probeTool } from '../tool-choice.js';
import { brief, CHECK_MS, CLAUSES, failWith, toolsIfListed } from './common.js';
import { openWithinCapacity } from './open-within-capacity.js';

/** How long a reply that should not come is waited for. */
const QUIET_MS = 500;
/** How long after closing a stream the server is given to notice before the closed session is used. */
const CLOSE_SETTLE_MS = 200;
/**
 * How long after a POST for the closed session was accepted it is tried again: a server may
 * learn that a stream is gone only when it next writes to it, the reply to that POST.
 */
const CLOSE_RECHECK_MS = 1000;
/**
 * How many times an accepted POST for the closed session is tried again. Over TCP the first
 * write to a stream its peer closed usually succeeds (the kernel takes the bytes; the peer
 * answers with a reset), and only the next one fails: a server that notices a closed stream
 * by a failed write needs two replies written to it.
 */
const CLOSE_RECHECKS = 2;

/** The reference's diagnostic line counting in-flight calls (any server printing it is read the same way). */
const IN_FLIGHT = /in_flight_calls:\s*(\d+)/;
const SLOW_CALL_MS = 20_000;
/** How long after the close a server is given to abort the call: a count asked later than that must be back down. */
const ABORT_GRACE_MS = 2000;
/** Pause between two counts. */
const COUNT_PAUSE_MS = 50;

function describePost(p: PostOutcome | undefined): string {
  if (p === undefined) return 'nothing sent';
  if (p.status === undefined) return p.problem ?? 'no response';
  const body = p.body.length > 200 ? `${p.body.slice(0, 200)}...` : p.body;
  return `HTTP ${p.status}${body === '' ? '' : ` ${body}`}`;
}

/**
 * The first POST of a session (initialize): its HTTP response and where its reply went; then,
 * once initialize was answered with a result, initialized and a ping: a server may answer
 * initialize on the stream and what follows elsewhere. The checks that share it judge what
 * was recorded, so the session is closed at once: it would hold one of a capped server's
 * sessions until the suite ends.
 */
function firstPost(ctx: ToolServerCtx) {
  return ctx.shared('first-post', async () => {
    const channel = await ctx.openSession('first-post', false);
    try {
      const ex = await exchange(channel, METHODS.initialize, initializeParams(), ctx.replyMs);
      let later: Exchange | undefined;
      if (ex.reply !== undefined && 'result' in ex.reply) {
        await channel.sendText(JSON.stringify({ jsonrpc: '2.0', method: METHODS.initialized }));
        // Only where its reply goes is judged here: its silence is ping.answered's, not the run's.
        later = await exchange(channel, METHODS.ping, undefined, ctx.replyMs, { countSilence: false });
      }
      return { channel, ex, later };
    } finally {
      await channel.close();
    }
  });
}

/** The checks that judge the reconnect exchange. */
const RECONNECT_CHECKS = {
  works: 'tool-server.sse.reconnect-new-session',
  freshId: 'tool-server.sse.reconnect-fresh-id',
} as const;

/**
 * A session opened and closed, then another opened, initialized and pinged: shared by the
 * reconnect checks. The new session's id is read before its initialize, so a session that
 * never works still shows whether its id is fresh.
 */
function reconnect(ctx: ToolServerCtx) {
  return ctx.shared(
    'reconnect',
    async () => {
      const first = await ctx.openSession('before-reconnect', true);
      const before = sessionOf(first);
      await first.close();
      await delay(CLOSE_SETTLE_MS);
      const again = await ctx.openSession('after-reconnect', false);
      try {
        const init = await initialize(again, ctx.firstReplyMs, revisionOf(ctx.target));
        const initialized = init.reply !== undefined && 'result' in init.reply;
        const ping = initialized ? await exchange(again, METHODS.ping, undefined, ctx.replyMs) : undefined;
        return { first, again, before, after: sessionOf(again), init, ping };
      } finally {
        await again.close();
      }
    },
    Object.values(RECONNECT_CHECKS),
  );
}

/** The checks that judge foreignPosts: once all of them ended, a session refused for capacity may have its sessions' room. */
const FOREIGN_POST_CHECKS = {
  unknownSession: 'tool-server.sse.unknown-session-refused',
  noSession400: 'tool-server.sse.no-session-400',
  closedSessionRefused: 'tool-server.sse.closed-session-refused',
  noCrossSessionReply: 'tool-server.sse.no-cross-session-reply',
} as const;

interface ForeignPost {
  readonly what: string;
  readonly id: number;
  readonly outcome: PostOutcome;
}

/**
 * POSTs that no open stream should answer, with two observer sessions listening (one, when a
 * capped server leaves no room for the closed session beside them): no sessionId, an unknown
 * one, a closed session's, and a call in flight when its stream closes; and before them,
 * requests of other sessions answered while the observers listen (a server that broadcasts
 * replies shows them on the observers every run). Shared by the refusal rules and the
 * routing check: its sessions are kept for the checks that judge them (session-owners.ts),
 * and closed by ctx.shared when the posts cannot all be made (a capped server refuses one).
 */
function foreignPosts(ctx: ToolServerCtx) {
  return ctx.shared('foreign-posts', () => postForeign(ctx), Object.values(FOREIGN_POST_CHECKS));
}

/**
 * Not exercised: the endpoint names no session in a query parameter (sse.endpoint-first
 * judges that), so a check that needs a session id, or a POST without one, has nothing to use.
 */
function noSessionParam(channel: SseChannel, seen?: string): NotExercised {
  const endpoint = channel.endpoint()?.href ?? 'no endpoint';
  return new NotExercised(
    `the endpoint ${JSON.stringify(endpoint.slice(0, 200))} carries no session id in a query parameter (sse.endpoint-first judges that): nothing here to send without it or to compare${seen === undefined ? '' : `; ${seen}`}`,
  );
}

/** The exchange of foreignPosts, made once per run. */
async function postForeign(ctx: ToolServerCtx) {
  const open = (label: string) => ctx.openSession(label, true);
  const observer = await open('observer');
  const second = await open('observer-2');
  const endpoint = observer.endpoint()!;
  // Each observer's own request, answered while the other listens.
  await exchange(second, METHODS.ping, undefined, ctx.replyMs);
  await exchange(observer, METHODS.ping, undefined, ctx.replyMs);
  const posts: ForeignPost[] = [];
  const ping = async (what: string, url: URL, headers?: Record<string, string>) => {
    const id = nextId();
    const outcome = await observer.postTo(url, JSON.stringify(request(id, METHODS.ping)), headers);
    posts.push({ what, id, outcome });
  };
  // An endpoint that carries its session elsewhere than in a query parameter (endpoint-first
  // judges that) leaves no POST without it, or for another session, to be made.
  if (sessionParamOf(endpoint) !== undefined) {
    await ping('a POST without a sessionId', withSession(endpoint, undefined));
    await ping('a POST for an unknown sessionId', withSession(endpoint, randomUUID()));
  }
  // A server with room for two sessions beside main only: observer-2's own exchange is
  // recorded, so it makes room, and the posts that follow are watched by one observer.
  const closed = await open('closed').catch(async (e: unknown) => {
    if (!(e instanceof SessionRefused)) throw e;
    await ctx.makeRoom(second);
    return open('closed');
  });
  await exchange(closed, METHODS.ping, undefined, ctx.replyMs);
  const closedEndpoint = closed.endpoint()!;
  await ctx.makeRoom(closed);
  await delay(CLOSE_SETTLE_MS);
  const closedId = nextId();
  const closedPost: ForeignPost = {
    what: 'a POST for a closed session',
    id: closedId,
    outcome: await observer.postTo(closedEndpoint, JSON.stringify(request(closedId, METHODS.ping))),
  };
  // A call in flight when its stream closes: its reply must not surface elsewhere. The
  // POST is answered before the stream closes, so the call reaches the server every run.
  const inFlight = await open('in-flight');
  const tool = probeTool(await toolsIfListed(ctx));
  const id = nextId();
  await inFlight.sendText(
    JSON.stringify(
      tool === undefined
        ? request(id, METHODS.ping)
        : request(id, METHODS.toolsCall, { name: tool.name, arguments: minimalArguments(tool) }),
    ),
  );
  await inFlight.close();
  await delay(QUIET_MS);
  return { observer, second, posts, closedPost, inFlightId: id, closed, inFlight };
}

/**
 * Replies on a channel that no request of that channel asked for: ids of other sessions'
 * requests (every id the suite sends is unique in the run), or any reply at all on an
 * observer, which sends nothing but its own requests.
 */
export function foreignReplies(channel: Channel, observer: boolean): JsonRpcResponse[] {
  // A numeric reply to a digits-only string id is the channel's own reply, mangled (jsonrpc.string-id judges it).
  const own = new Set([...channel.peer.sentIds].map(String));
  return channel.peer.strayReplies.filter((r) => (r.id === null ? observer : !own.has(String(r.id))));
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
    basis: 'spec',
    rule: 'The spec: GET on the stream URL with Accept: text/event-stream answers HTTP 200 with an event stream. Every SSE tool server.',
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
    basis: 'spec',
    rule: 'The spec: the first event of a new stream is `endpoint`, whose data is the path (or URL) of the POST endpoint with the sessionId query parameter. Every SSE tool server. The name is judged here only: the other checks follow a session parameter named otherwise (session_id).',
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
        const endpoint = channel.endpoint();
        const session = endpoint === undefined ? undefined : sessionIdOf(endpoint);
        if (endpoint === undefined || session === undefined || session === '') {
          throw new CheckFailure(
            'the endpoint event names no usable POST URL with a sessionId',
            expected,
            first.data.slice(0, 300),
            frameEvidence('stream', channel, index),
          );
        }
        const param = sessionParamOf(endpoint);
        if (param !== SESSION_QUERY_PARAM) {
          // The other checks follow the parameter the server named; this one judges the name.
          throw new CheckFailure(
            `the endpoint carries its session in the query parameter ${JSON.stringify(param)}, where the spec names it sessionId`,
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
    basis: 'spec',
    rule: 'The spec: a JSON-RPC POST to the announced endpoint of an open session is answered HTTP 202 Accepted, and clients treat 200 or 202 as success. Every SSE tool server.',
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
    basis: 'spec-reference',
    rule: 'The spec answers the POST with 202 Accepted, and says a probe treats 200 as success too; 200 works with every client the spec describes, so 202 exactly is a warning.',
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
    basis: 'spec',
    rule: "The spec: the JSON-RPC reply to a POSTed request is not in the POST's response but arrives on the session's stream as event `message`. Every SSE tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ex, later } = await firstPost(ctx);
      const sent: [string, Exchange | undefined][] = [
        ['initialize', ex],
        ['a ping after initialize', later],
      ];
      for (const [what, one] of sent) {
        const misplaced = one === undefined ? undefined : misplacedReply(channel, one);
        if (misplaced === undefined) continue;
        const message = `the reply to ${what} came ${misplaced.where}, not on the stream as event message`;
        const expected = 'event: message with the reply on the stream';
        if (misplaced.frameIndex === undefined)
          throw failWith(message, expected, misplaced.actual, [channel]);
        throw new CheckFailure(
          message,
          expected,
          misplaced.actual,
          frameEvidence('stream', channel, misplaced.frameIndex),
        );
      }
      // The ping's silence is ping.answered's: here only where a reply went is judged.
      if (ex.reply !== undefined) return;
      const status = ex.post?.status;
      if (status === undefined || status < 200 || status > 299) {
        // A refused POST carries no request to reply to: one cause, judged by post-accepted.
        throw new NotExercised(
          `the POST was not accepted (${describePost(ex.post)}), so no reply was due; see tool-server.sse.post-accepted`,
        );
      }
      throw failWith(
        `no reply on the stream: ${ex.why}`,
        'event: message with the reply on the stream',
        'nothing',
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
    basis: 'spec-reference',
    rule: 'The spec gives `X-Accel-Buffering: no` as the fix for a reverse proxy that buffers the stream: advice for deployments behind such a proxy, not a rule for every server.',
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
      "A POST naming its session only in the Mcp-Session-Id header is either refused or answered on that session's stream; it is never accepted and then lost.",
    level: 'must',
    basis: 'spec',
    rule: "The spec: a session is carried in the sessionId query parameter or in the Mcp-Session-Id header, so a server may read either; but a POST it accepts (2xx) must be answered on its session's stream, or the message is silently lost. Every SSE tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const mine = await ctx.openSession('header', true);
      const other = await ctx.openSession('other', true);
      try {
        const session = sessionOf(mine);
        if (session === undefined) throw noSessionParam(mine);
        const id = nextId();
        const waiting = mine.peer.wait(id, ctx.replyMs, () => mine.gone());
        const outcome = await mine.postTo(
          withSession(mine.endpoint()!, undefined),
          JSON.stringify(request(id, METHODS.ping)),
          { [SESSION_HEADER]: session },
        );
        const accepted = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
        if (!accepted) return; // the server reads the session from the query only: allowed
        const got = await waiting;
        if (got.reply === undefined) {
          throw failWith(
            `a POST with the session in the ${SESSION_HEADER} header only was answered ${describePost(outcome)}, but no reply came on the session's stream (${got.why})`,
            "the reply on the session's stream (or the POST refused)",
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
    id: FOREIGN_POST_CHECKS.unknownSession,
    clause: `${CLAUSES.sseTransport} ("no SSE stream is active, a reference server answers HTTP 400"); ${CLAUSES.errors} (POST with no active SSE stream, reference server: HTTP 400); ${CLAUSES.session} (POST on an open session: 202)`,
    description:
      'A POST without a sessionId, or for a sessionId the server never issued, is not accepted (no 2xx status).',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec has a reference server refuse (HTTP 400) a POST for which no SSE stream is active; its session table accepts a POST (202) for an open session and says nothing of other POSTs, nor does MCP 2024-11-05, so no rule binds every server. A 2xx to a POST for no session or an unknown one tells the client its message was taken while it is lost, hence a warning.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { posts, observer } = await foreignPosts(ctx);
      if (posts.length === 0) throw noSessionParam(observer);
      const accepted = posts.filter((p) => p.outcome.status !== undefined && p.outcome.status < 300);
      if (accepted.length > 0) {
        throw failWith(
          accepted.map((p) => `${p.what} was answered ${describePost(p.outcome)}`).join('; '),
          'no 2xx (e.g. HTTP 400 {"error": "..."})',
          accepted.map((p) => `${p.what}: ${describePost(p.outcome)}`).join('\n'),
          [observer],
        );
      }
    },
  },
  {
    id: FOREIGN_POST_CHECKS.noSession400,
    clause: `${CLAUSES.sseTransport} ("no SSE stream is active, a reference server answers HTTP 400 with a JSON object holding a string field error"); ${CLAUSES.errors}`,
    description:
      'A POST without a sessionId, for an unknown one or for a closed session is answered HTTP 400 with a JSON body {"error": "<string>"}.',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec: when a POST arrives and no SSE stream is active, a *reference* server answers HTTP 400 with a JSON object holding a string field `error`; other servers may refuse otherwise.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { posts, closedPost, observer } = await foreignPosts(ctx);
      const wrong = [...posts, closedPost].filter((p) => p.outcome.status !== 400 || !isErrorBody(p.outcome));
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
    id: FOREIGN_POST_CHECKS.closedSessionRefused,
    clause: `${CLAUSES.session} (open -> closed: "server de-allocates"); ${CLAUSES.sseTransport} ("no SSE stream is active, a reference server answers HTTP 400"); ${CLAUSES.errors}`,
    description:
      'After a client closes its stream, a POST for that session is not accepted (no 2xx), at the latest once the server had a reply to write to the closed stream (an accepted POST is tried again 1 s later, twice: over TCP the first write to a closed stream may still succeed).',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec: when the client closes its stream the server de-allocates the session, and a reference server refuses (HTTP 400) a POST for which no SSE stream is active; how every other server answers a later POST for the closed session it does not say, so a 2xx warns: the client is told its message was taken while it is lost. The spec sets no deadline, and a server may learn that a stream is gone only when it next writes to it: a POST accepted soon after the close is tried again once the server has had the reply to write, and once more, since over TCP only the second write to a stream the peer closed may fail.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { closedPost, observer, closed } = await foreignPosts(ctx);
      const answers = [closedPost.outcome];
      while (postAccepted(answers.at(-1)) && answers.length <= CLOSE_RECHECKS) {
        await delay(CLOSE_RECHECK_MS);
        answers.push(
          await observer.postTo(closed.endpoint()!, JSON.stringify(request(nextId(), METHODS.ping))),
        );
      }
      if (postAccepted(answers.at(-1))) {
        const later = answers
          .slice(1)
          .map((a) => describePost(a))
          .join(', then ');
        throw failWith(
          `${closedPost.what} was answered ${describePost(closedPost.outcome)}, and each of ${CLOSE_RECHECKS} more, ${CLOSE_RECHECK_MS} ms apart (after the server had replies to write to the closed stream), ${later}`,
          'no 2xx: the session is gone',
          answers.map((a) => describePost(a)).join('; then '),
          [observer, closed],
        );
      }
    },
  },
  {
    id: 'tool-server.sse.closed-session',
    clause: `${CLAUSES.session} (open -> closed: "server de-allocates: unregisters subscriptions, aborts in-flight tool tasks, frees connections")`,
    description:
      'A slow call in flight on a session whose client closes its stream is aborted, where the server shows its in-flight calls (a `slow` tool taking `ms` and a diagnostic tool reporting `in_flight_calls: N`, as the reference server has, both allowed by --call-tools); not exercised elsewhere.',
    level: 'must',
    basis: 'spec',
    rule: `The spec: when the client closes its stream the session is closed and the server de-allocates it: unregisters subscriptions, aborts in-flight tool tasks, frees connections. Every SSE tool server. The spec sets no deadline: the call is judged still running only by a count asked ${ABORT_GRACE_MS} ms or more after the close.`,
    timeoutMs: CHECK_MS,
    async run(ctx) {
      await expectInFlightAborted(ctx);
    },
  },
  {
    id: FOREIGN_POST_CHECKS.noCrossSessionReply,
    clause: `${CLAUSES.errors} ("Responses routed to wrong client"); ${CLAUSES.session} (closed: the server de-allocates, aborts in-flight tool tasks)`,
    description:
      "No stream ever carries a reply it did not ask for: with two observer sessions open (one, on a server whose cap leaves room for no more), replies to the other sessions' requests, to POSTs without a session, for an unknown or a closed session, and to a call in flight when its stream closes never appear on another session's stream.",
    level: 'must',
    basis: 'spec',
    rule: 'The spec: responses routed to the wrong client are a server fault; a server keeps a registry mapping each session id to its own stream, so a reply goes to the stream of the session that asked, or nowhere. Every SSE tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { observer, second, posts, closedPost, inFlightId, closed, inFlight } = await foreignPosts(ctx);
      const named = new Map<string, string>(
        [...posts, closedPost].map((p) => [String(p.id), p.what] as [string, string]),
      );
      named.set(String(inFlightId), 'a call in flight when its stream closed');
      const observers = new Set<Channel>([observer, second]);
      // Every stream the suite holds open is watched, not only the observers.
      const watched = [...observers, ...ctx.openChannels().filter((c) => !observers.has(c))];
      const leaks = watched.flatMap((c) =>
        foreignReplies(c, observers.has(c)).map((reply) => ({ on: c.peer.label, reply })),
      );
      const first = leaks[0];
      if (first !== undefined) {
        const what = (r: JsonRpcResponse) =>
          named.get(String(r.id)) ?? `request id ${JSON.stringify(r.id)} of another session`;
        throw failWith(
          `${leaks.length} reply(ies) on a stream that did not ask for them: ${leaks
            .slice(0, 6)
            .map((l) => `the reply to ${what(l.reply)} on ${l.on}`)
            .join('; ')}`,
          'each reply only on the stream of the session that asked',
          leaks
            .slice(0, 10)
            .map((l) => `${l.on}: ${JSON.stringify(l.reply).slice(0, 200)}`)
            .join('\n'),
          [...watched, closed, inFlight],
          `"id":${JSON.stringify(first.reply.id)}`,
        );
      }
    },
  },
  {
    id: RECONNECT_CHECKS.works,
    clause: `${CLAUSES.session} (closed -> open: "client issues GET /sse again": new session)`,
    description:
      'After a client closes its stream, a new GET opens a session that works (its id may be the closed one: a server may resume or reuse it).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: after a client closed its stream, GET /sse again opens a new session (resuming the old one only if the server supports that). Every SSE tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { first, again, init, ping } = await reconnect(ctx);
      if (ping === undefined) {
        throw failWith(
          `initialize on the new session was not answered with a result: ${init.why ?? brief(init.reply)}`,
          'an initialize result on the new stream',
          init.reply === undefined ? 'nothing' : brief(init.reply),
          [first, again],
        );
      }
      if (ping.reply === undefined) {
        throw failWith(
          `ping on the new session got no reply: ${ping.why}`,
          'a reply on the new stream',
          'nothing',
          [first, again],
        );
      }
    },
  },
  {
    id: RECONNECT_CHECKS.freshId,
    clause: `${CLAUSES.session} (closed -> open: "new session")`,
    description: 'The session a new GET opens after a close has an id the closed session did not have.',
    level: 'should',
    basis: 'protocol-should',
    rule: "MCP 2025-03-26 on: a session id SHOULD be globally unique (Streamable HTTP; the SSE transport of 2024-11-05 states nothing, and the spec lets a server resume the closed session, so this warns only). A closed session's id handed to the next client lets a late POST of the old one land in the new session. Every SSE tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { first, again, before, after } = await reconnect(ctx);
      if (before === undefined) throw noSessionParam(first);
      if (after === before) {
        throw failWith(
          `the new stream announced the closed session's id ${before} again`,
          'a new sessionId',
          String(after),
          [first, again],
        );
      }
    },
  },
  {
    id: 'tool-server.sse.concurrent-routing',
    clause: `${CLAUSES.errors} ("Responses routed to wrong client": a registry maps each session id to its own stream)`,
    description:
      'With several sessions open (8, or as many as the server takes: a session refused with 503 or 429 is left out), concurrent requests on each are all answered, each on its own stream (a slow tool call is waited for longer; one still unanswered while its session answers the rest is not judged; a tool whose first call is not answered within its share of half the silence budget is called on two sessions only, once each, the other requests then pings).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: replies go to the client that asked; a server keeps a registry mapping each session id to its own stream (else responses are routed to the wrong client). Every SSE tool server. JSON-RPC sets no deadline for an answer, so a tool call not answered yet is slow, not lost, as long as the server answers the rest.',
    timeoutMs: 60_000,
    async run(ctx) {
      const SESSIONS = 8;
      const PER_SESSION = 6;
      const sessions = await openWithinCapacity(ctx, SESSIONS);
      try {
        // Not counted for the silence watch: the unanswered ones are judged below (slow tools).
        const uncounted = { countSilence: false } as const;
        const tool = probeTool(await toolsIfListed(ctx));
        const burstCalls = (sessions.length * PER_SESSION) / 2;
        const opening = tool === undefined ? undefined : await firstCall(ctx, sessions[0]!, tool, burstCalls);
        // A slow tool is still called, once on each of two sessions (not the first one's, whose
        // call may still run): late replies must come home too.
        const callsOn = (session: number, n: number) =>
          n % 2 === 1 &&
          (opening?.quick === true || (session >= 1 && session <= SLOW_CALL_SESSIONS && n === 1));
        const sends = sessions.flatMap((s, si) =>
          Array.from({ length: PER_SESSION }, (_, n) => {
            const call = tool !== undefined && callsOn(si, n);
            const ex = call
              ? exchange(
                  s,
                  METHODS.toolsCall,
                  { name: tool.name, arguments: minimalArguments(tool) },
                  ctx.replyMs,
                  uncounted,
                )
              : exchange(s, METHODS.ping, undefined, ctx.replyMs, uncounted);
            return ex.then((e) => ({ session: s, call, ex: e }));
          }),
        );
        const sent = await Promise.all(sends);
        // A request the server took may just be slow (a tool that takes seconds; a server
        // serving one request at a time, the pings queued behind its calls).
        const outcomes = await withLateReplies(
          sent.map((r) => ({ channel: r.session, ex: r.ex })),
          ctx.replyMs,
        );
        const lateMs = LATE_REPLY_FACTOR * ctx.replyMs;
        const results = sent.map((r, i) => ({ ...r, reply: outcomes[i]!.reply, why: outcomes[i]!.why }));
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
        // A reply to one of these requests on any other stream the suite holds open is misrouted too.
        const ours = new Set(results.map((r) => String(r.ex.id)));
        const elsewhere = ctx
          .openChannels()
          .filter((c) => !sessions.includes(c as SseChannel))
          .flatMap((c) =>
            c.peer.strayReplies.filter((r) => ours.has(String(r.id))).map((reply) => ({ c, reply })),
          );
        const misrouted = elsewhere[0];
        if (misrouted !== undefined) {
          throw failWith(
            `${elsewhere.length} reply(ies) to these sessions' requests arrived on another stream, e.g. on ${misrouted.c.peer.label}: ${JSON.stringify(misrouted.reply).slice(0, 200)}`,
            'each reply on the stream of the session that sent the request',
            brief(misrouted.reply),
            [...sessions, misrouted.c],
            JSON.stringify(misrouted.reply.id),
          );
        }
        const answered = results.find((r) => r.reply !== undefined);
        if (answered !== undefined)
          noteExchange(answered.session, METHODS.ping, { ...answered.ex, reply: answered.reply });
        const unanswered = results.filter((r) => r.reply === undefined);
        if (unanswered.length === 0) return;
        const calls = unanswered.filter((r) => r.call);
        const ended = unanswered.filter((r) => r.session.gone() !== undefined);
        const refused = unanswered.filter((r) => !postAccepted(r.ex.post) && r.ex.post?.timedOut !== true);
        const postsUnanswered = unanswered.filter((r) => r.ex.post?.timedOut === true).length;
        // Slow, not lost: the session is open, no POST was refused, and nothing else is missing
        // but tool calls (or pings and POSTs that may wait behind them: a server whose process a
        // slow call holds answers no HTTP request meanwhile). Told to stop; not judged.
        if ((calls.length > 0 || opening?.quick === false) && ended.length === 0 && refused.length === 0) {
          await Promise.all(calls.map((r) => cancelRequest(r.session, r.ex.id)));
          const pings = unanswered.length - calls.length;
          if (pings === 0) return; // every ping, and every call answered, came to its own stream
          const what = calls.length > 0 ? `${calls.length} tool call(s) of ${tool?.name} and ` : '';
          const slowFirst =
            opening?.quick === false
              ? `, after a first call of ${tool?.name} got no reply within ${opening.budgetMs} ms (so the burst held ${SLOW_CALL_SESSIONS} calls only)`
              : '';
          throw new NotExercised(
            `${what}${pings} ping(s) of ${results.length} concurrent requests got no reply within ${ctx.replyMs + lateMs} ms${postsUnanswered === 0 ? '' : ` (${postsUnanswered} POST(s) got no HTTP response within ${ctx.httpMs} ms)`}, though every session stayed open and no reply went astray${slowFirst}: a server that serves one request at a time, busy with slow calls, looks the same (JSON-RPC sets no deadline), so the routing of those replies was not seen`,
          );
        }
        // A POST wirecheck itself cut at httpMs, with no HTTP response, may have been aborted
        // before the server read the message: no reply to it shows nothing about routing, nor
        // that the server lost a request (JSON-RPC sets no deadline). Unless its session ended.
        const cut = unanswered.filter((r) => r.ex.post?.timedOut === true && r.session.gone() === undefined);
        const judged = unanswered.filter((r) => !cut.includes(r));
        if (judged.length === 0) {
          throw new NotExercised(
            `${cut.length} of ${results.length} concurrent requests got no reply, and wirecheck had cut the POST of each after ${ctx.httpMs} ms with no HTTP response, so the server may never have read them (${cut[0]!.why ?? 'no reply'}); every session stayed open, every other request was answered and no reply went astray, but whether all ${results.length} are answered on their own streams was not seen`,
          );
        }
        const notCounted =
          cut.length === 0
            ? ''
            : `; not counted: ${cut.length} whose POST wirecheck cut after ${ctx.httpMs} ms with no HTTP response`;
        const first = refused[0] ?? ended[0] ?? judged.find((r) => !r.call) ?? judged[0]!;
        throw failWith(
          `${judged.length} of ${results.length} concurrent requests got no reply (${first.why ?? 'no reply'})${notCounted}`,
          'every request answered on its own stream',
          `${judged.length} unanswered`,
          sessions,
        );
      } finally {
        await Promise.all(sessions.map((s) => s.close()));
      }
    },
  },
];

/** How many sessions of the routing burst call a tool whose first call was slow (one call each). */
const SLOW_CALL_SESSIONS = 2;

/**
 * One call of `tool` before the burst: `quick` when answered within the share of half the
 * silence budget that each of `calls` calls may take (else the call is cancelled). A server
 * that serves one call at a time works through a burst's calls long after the check ends:
 * slower calls would leave a backlog that later checks take for a server gone silent.
 */
async function firstCall(
  ctx: ToolServerCtx,
  session: SseChannel,
  tool: Tool,
  calls: number,
): Promise<{ readonly quick: boolean; readonly budgetMs: number }> {
  const budgetMs = Math.max(1, Math.floor(silenceMs(ctx.replyMs) / 2 / calls));
  const params = { name: tool.name, arguments: minimalArguments(tool) };
  const ex = await exchange(session, METHODS.toolsCall, params, budgetMs, { countSilence: false });
  if (ex.reply !== undefined) return { quick: true, budgetMs };
  await cancelRequest(session, ex.id);
  return { quick: false, budgetMs };
}

/**
 * A slow call in flight on a session whose stream closes is aborted. Seen only with a `slow`
 * tool taking `ms` and a diagnostic tool that reports `in_flight_calls: N` (the reference
 * server has both), both allowed by --call-tools: without them, or when a count needed did not
 * come, nothing was seen either way, and a pass would be a pass on nothing. The diagnostic may
 * be slow itself: each count gets the reply budget and is not counted for the silence watch,
 * and each phase is bounded in time.
 */
async function expectInFlightAborted(ctx: ToolServerCtx): Promise<void> {
  const allowed = await toolsIfListed(ctx);
  const slow = allowed.find((t) => t.name === 'slow' && t.inputSchema.properties?.ms !== undefined);
  const diagnostic = findDiagnosticTool(allowed);
  if (slow === undefined || diagnostic === undefined) {
    const missing = [
      slow === undefined ? 'no `slow` tool taking `ms`' : undefined,
      diagnostic === undefined ? 'no diagnostic tool' : undefined,
    ].filter((m) => m !== undefined);
    throw new NotExercised(
      `the server offers ${missing.join(' and ')} that --call-tools allows (${allowed.length} tool(s) allowed; the reference server has both): no call could be seen in flight, nor aborted, when its stream closed`,
    );
  }
  const main = await ctx.main();
  /** in_flight_calls as the diagnostic reports it (asked before `until`), or undefined when no answer came by then. */
  const count = async (until: number): Promise<number | undefined> => {
    const ms = Math.min(ctx.replyMs, until - performance.now());
    if (ms <= 0) return undefined;
    const ex = await exchange(main, METHODS.toolsCall, { name: diagnostic.name, arguments: {} }, ms, {
      countSilence: false,
    });
    if (ex.reply === undefined || !('result' in ex.reply)) return undefined;
    // An answer counts for the silence watch (the session is talking).
    noteExchange(main, METHODS.toolsCall, ex);
    const parsed = safeParseFirstIssue(CallToolResult, ex.reply.result);
    const m = parsed.success ? IN_FLIGHT.exec(resultText(parsed.data)) : null;
    return m === null ? undefined : Number(m[1]);
  };
  const before = await count(performance.now() + ctx.replyMs);
  if (before === undefined) {
    throw new NotExercised(
      `${diagnostic.name} reported no in_flight_calls count within ${ctx.replyMs} ms: the calls in flight cannot be counted`,
    );
  }
  const session = await ctx.openSession('deallocate', true);
  let during: number | undefined;
  try {
    await session.sendText(
      JSON.stringify(
        request(nextId(), METHODS.toolsCall, { name: slow.name, arguments: { ms: SLOW_CALL_MS } }),
      ),
    );
    const until = performance.now() + ctx.replyMs;
    for (let i = 0; i < 20 && performance.now() < until && (during === undefined || during <= before); i++) {
      await delay(COUNT_PAUSE_MS);
      during = await count(until);
    }
  } finally {
    await session.close();
  }
  if (during === undefined || during <= before) {
    throw new NotExercised(
      `a ${slow.name} call never showed as in flight within ${ctx.replyMs} ms (${diagnostic.name} reported in_flight_calls ${before} before it, then ${during ?? 'no count'}): there was no call in flight to abort when its stream closed`,
    );
  }
  const closedAt = performance.now();
  // Counts asked once the grace passed must show the call gone; one asked earlier that shows it
  // still in flight only says the server had not got to it yet.
  const until = closedAt + ABORT_GRACE_MS + ctx.replyMs;
  let late: { asked: number; value: number } | undefined;
  for (let i = 0; i < 60 && performance.now() < until; i++) {
    await delay(COUNT_PAUSE_MS);
    const asked = performance.now();
    const value = await count(until);
    if (value === undefined) continue;
    if (value <= before) return;
    if (asked - closedAt >= ABORT_GRACE_MS) {
      late = { asked: asked - closedAt, value };
      break;
    }
  }
  if (late === undefined) {
    throw new NotExercised(
      `no count of ${diagnostic.name} asked ${ABORT_GRACE_MS} ms or more after the stream closed came back within ${ABORT_GRACE_MS + ctx.replyMs} ms of the close, and none before showed the call gone: its abort was not seen either way`,
    );
  }
  throw failWith(
    `a ${slow.name} call in flight when its stream closed was not aborted: ${diagnostic.name}, asked ${Math.round(late.asked)} ms after the close, reports in_flight_calls ${late.value} (${before} before the call, ${during} during it)`,
    `in_flight_calls back to ${before} within ${ABORT_GRACE_MS} ms of the close`,
    `in_flight_calls: ${late.value}`,
    [main, session],
  );
}
