import { randomUUID } from 'node:crypto';
import { type Check, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { clip } from '../../../protocol/clip.js';
import { parseJsonBounded } from '../../../protocol/json/index.js';
import { request } from '../../../protocol/jsonrpc/index.js';
import {
  METHODS,
  mcpSessionIdSchema,
  mediaTypeOf,
  revisionAtLeast,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../../../protocol/mcp/index.js';
import { createFrameDecoder } from '../../../protocol/sse/index.js';
import type { ToolServerCtx } from '../context.js';
import { startRequest } from '../http.js';
import { nextId } from '../peer.js';
import { delay, exchange } from '../rpc.js';
import { noteExchange } from '../silence.js';
import type { RawAnswer, StreamableChannel, StreamablePost } from '../streamable-channel.js';
import { CHECK_MS, failWith } from './common.js';
import { resumptionChecks } from './streamable-resume.js';

/** The revision text the checks cite. */
const CLAUSE = 'MCP 2025-03-26 and later, Transports: Streamable HTTP';
/** How long an answer stream is given to end after its last response. */
const END_MS = 2000;
/** Concurrent calls per session in the routing check. */
const CONCURRENT = 8;

async function session(ctx: ToolServerCtx, label: string): Promise<StreamableChannel> {
  if (ctx.transport !== 'http')
    throw new CheckSkipped('this check applies to the Streamable HTTP transport only');
  return (await ctx.connect(label)) as StreamableChannel;
}

function clipped(body: string): string {
  return body.length > 200 ? `${body.slice(0, 200)}...` : body;
}

function describeAnswer(a: {
  status: number | undefined;
  headers?: Record<string, unknown>;
  body: string;
  problem?: string;
}): string {
  if (a.status === undefined) return a.problem ?? 'no answer';
  const type = a.headers?.['content-type'];
  const body = clipped(a.body);
  return `HTTP ${a.status}${type === undefined ? '' : ` ${String(type)}`}${body === '' ? '' : ` ${body}`}`;
}

/** What a POST's answer was, for messages: its status, type, what it carried and what was not kept. */
export function describePost(p: StreamablePost | undefined): string {
  if (p === undefined) return 'no POST';
  if (p.status === undefined) return p.problem ?? 'no answer';
  const kept = p.eventsSeen > p.events.length ? ` (${p.events.length} kept)` : '';
  const shown = p.kind === 'sse' ? `${p.eventsSeen} event(s)${kept}` : p.body.slice(0, 200);
  const unkept = p.dropped > 0 ? ` (and ${p.dropped} message(s) read but not kept)` : '';
  return `HTTP ${p.status} ${String(p.headers['content-type'] ?? '(no content type)')} ${shown}${unkept}`;
}

/** The POST record of the request with this id on the channel. */
function postOf(channel: StreamableChannel, id: number | string): StreamablePost | undefined {
  const needle = `"id":${JSON.stringify(id)}`;
  return channel.posts.find((p) => p.text.includes(needle) && p.text.includes('"method"'));
}

/** The Origin of a page of another site (origin-refused). */
const FOREIGN_ORIGIN = 'http://wirecheck-rebinding.invalid';
/** How many times origin-refused asks while the server answers 429 or 5xx (not now). */
const ORIGIN_TRIES = 3;
/** The pause between those tries (longer when Retry-After asks, up to ORIGIN_MAX_PAUSE_MS). */
const ORIGIN_PAUSE_MS = 500;
const ORIGIN_MAX_PAUSE_MS = 2000;

/** 429 Too Many Requests or a 5xx: the server cannot serve now, whatever the request was. */
function notNow(status: number | undefined): boolean {
  return status !== undefined && (status === 429 || status >= 500);
}

/**
 * POST `body` with `headers` until the answer is something else than 429 or 5xx, at most
 * ORIGIN_TRIES times. A session the server opened for it is ended (DELETE) at once, so a
 * server that bounds its sessions is not left one fewer.
 */
async function untilServed(
  channel: StreamableChannel,
  headers: Record<string, string>,
  body: string,
): Promise<RawAnswer> {
  let answer: RawAnswer = { status: undefined, headers: {}, body: '', problem: 'not sent' };
  for (let i = 0; i < ORIGIN_TRIES; i++) {
    if (i > 0) {
      const asked = Number(answer.headers['retry-after']);
      const pause = Number.isFinite(asked) && asked > 0 ? asked * 1000 : ORIGIN_PAUSE_MS;
      await delay(Math.min(Math.max(pause, ORIGIN_PAUSE_MS), ORIGIN_MAX_PAUSE_MS));
    }
    answer = await channel.raw('POST', headers, body);
    const opened = answer.headers[STREAMABLE_HTTP_HEADERS.sessionId];
    if (typeof opened === 'string') {
      // With the POST's version header: from 2025-06-18 a server may refuse a DELETE without it.
      const version = headers[STREAMABLE_HTTP_HEADERS.protocolVersion];
      const end: Record<string, string> = { [STREAMABLE_HTTP_HEADERS.sessionId]: opened };
      if (version !== undefined) end[STREAMABLE_HTTP_HEADERS.protocolVersion] = version;
      await channel.raw('DELETE', end, undefined, 1000);
    }
    if (!notNow(answer.status)) break;
  }
  return answer;
}

/** The checks that judge or send on the exercised session: once all of them ended, a session refused for capacity may have its room. */
const EXERCISE_CHECKS = {
  sessionId: 'tool-server.http.session-id',
  notification202: 'tool-server.http.notification-202',
  requestAnswer: 'tool-server.http.request-answer',
  answerStreamEnds: 'tool-server.http.answer-stream-ends',
  answerBeforeClose: 'tool-server.http.answer-before-close',
  sessionRequired: 'tool-server.http.session-required',
  unknownSession404: 'tool-server.http.unknown-session-404',
  getStream: 'tool-server.http.get-stream',
  originRefused: 'tool-server.http.origin-refused',
  protocolVersionHeader: 'tool-server.http.protocol-version-header',
} as const;

/** A session with a notification, a client response and requests sent: its POSTs, shared by the checks. */
function exercised(ctx: ToolServerCtx) {
  return ctx.shared(
    'http-exercised',
    async () => {
      const channel = await session(ctx, 'http-exercise');
      const notification = await channel.sendText(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/wirecheck-unknown', params: {} }),
      );
      const response = await channel.sendText(
        JSON.stringify({ jsonrpc: '2.0', id: `wirecheck-${randomUUID()}`, result: {} }),
      );
      const ping = await exchange(channel, METHODS.ping, undefined, ctx.replyMs);
      const list = await exchange(channel, METHODS.toolsList, {}, ctx.replyMs);
      await channel.settle(END_MS);
      return { channel, notification, response, ping, list };
    },
    Object.values(EXERCISE_CHECKS),
  );
}

/** A 2xx answer to a ping: an event stream, or a JSON body with a result. */
function servedPing(answer: {
  status: number | undefined;
  headers: Record<string, unknown>;
  body: string;
}): boolean {
  if (answer.status === undefined || answer.status < 200 || answer.status >= 300) return false;
  const type = mediaTypeOf(answer.headers['content-type'] as string | undefined);
  if (type === STREAMABLE_HTTP_CONTENT_TYPES.eventStream) return true;
  try {
    const value: unknown = JSON.parse(answer.body);
    return typeof value === 'object' && value !== null && 'result' in value;
  } catch {
    return false;
  }
}

export const streamableHttpChecks: Check<ToolServerCtx>[] = [
  {
    id: EXERCISE_CHECKS.sessionId,
    clause: `${CLAUSE}, Session Management`,
    description:
      'A session id issued in the initialize answer (Mcp-Session-Id) holds visible ASCII only (0x21 to 0x7E).',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: a server MAY assign a session id at initialization, in the Mcp-Session-Id header of the HTTP response carrying the InitializeResult; the id MUST only contain visible ASCII characters (0x21 to 0x7E). Every Streamable HTTP server that issues one.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await exercised(ctx);
      const init = channel.posts[0];
      const raw = init?.headers[STREAMABLE_HTTP_HEADERS.sessionId];
      if (raw === undefined)
        throw new CheckSkipped('the server issued no session id (sessions are optional)');
      const id = Array.isArray(raw) ? raw.join(', ') : raw;
      if (!mcpSessionIdSchema.safeParse(id).success) {
        throw failWith(
          `the session id ${JSON.stringify(id)} holds characters outside visible ASCII`,
          'Mcp-Session-Id of characters 0x21 to 0x7E',
          JSON.stringify(id),
          [channel],
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.notification202,
    clause: `${CLAUSE}, Sending Messages to the Server`,
    description:
      'A POST holding only a notification (notifications/initialized among them), or only a response, that the server accepts is answered 202 Accepted with no body.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: if the POST input consists solely of JSON-RPC responses or notifications and the server accepts it, the server MUST return HTTP 202 Accepted with no body (if it cannot accept it, an HTTP error status). Every Streamable HTTP server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, notification, response } = await exercised(ctx);
      // The server may refuse the two made-up messages (an HTTP error is its answer to input it
      // cannot accept); notifications/initialized is one every server takes.
      const initialized = channel.posts.find((p) => p.text.includes(`"${METHODS.initialized}"`));
      let accepted = 0;
      const unanswered: string[] = [];
      for (const [what, outcome] of [
        ['notifications/initialized', initialized],
        ['a notification', notification],
        ['a response', response],
      ] as const) {
        if (outcome === undefined || outcome.status === undefined) {
          unanswered.push(`${what} (${outcome?.problem ?? 'no answer'})`);
          continue;
        }
        if (outcome.status < 200 || outcome.status >= 300) continue;
        accepted += 1;
        if (outcome.status !== 202 || outcome.body !== '') {
          // A short body such as `null` reads as part of the status line unless it is named.
          const answered =
            outcome.status === 202
              ? `HTTP 202 with a body (${clipped(outcome.body)})`
              : describeAnswer(outcome);
          throw failWith(
            `the POST of ${what} was answered ${answered}, not 202 with no body`,
            'HTTP 202 Accepted, no body',
            describeAnswer(outcome),
            [channel],
          );
        }
      }
      if (accepted === 0) {
        const none = unanswered.length === 0 ? '' : `; no HTTP answer to ${unanswered.join(', ')}`;
        throw new NotExercised(
          `the server accepted no POST of a notification or a response (refused with an HTTP error status${none}): none to judge`,
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.requestAnswer,
    clause: `${CLAUSE}, Sending Messages to the Server`,
    description:
      "A POST holding a request is answered with Content-Type application/json or text/event-stream, and that answer carries the response with the request's id (both answer types are accepted).",
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: if the POST input contains requests, the server MUST either return Content-Type text/event-stream (an SSE stream that carries the responses) or application/json (one JSON object); the client MUST support both. Every Streamable HTTP server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ping, list } = await exercised(ctx);
      for (const ex of [ping, list]) {
        const post = postOf(channel, ex.id);
        const type = mediaTypeOf(post?.headers['content-type'] as string | undefined);
        const answerType =
          type === STREAMABLE_HTTP_CONTENT_TYPES.json || type === STREAMABLE_HTTP_CONTENT_TYPES.eventStream;
        if (post === undefined || post.status !== 200 || !answerType) {
          throw failWith(
            `the POST of request ${ex.id} was answered ${describePost(post)}`,
            'HTTP 200 with Content-Type application/json or text/event-stream',
            describePost(post),
            [channel],
          );
        }
        if ((post.responseCounts.get(ex.id) ?? 0) === 0) {
          throw failWith(
            `the ${post.kind === 'sse' ? 'event stream' : 'JSON body'} answering request ${ex.id} did not carry its response (carried: ${JSON.stringify(post.messages).slice(0, 300)})`,
            `a JSON-RPC response with id ${ex.id} in the answer`,
            describePost(post),
            [channel],
          );
        }
      }
    },
  },
  {
    id: EXERCISE_CHECKS.answerStreamEnds,
    clause: `${CLAUSE}, Sending Messages to the Server`,
    description: 'An event stream answering a POST ends once it has carried the responses to its requests.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-03-26: after the JSON-RPC response has been sent on the SSE stream of a POST, the server SHOULD close that stream; a stream left open holds a connection per request.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ping, list } = await exercised(ctx);
      const streams = [ping, list].map((ex) => postOf(channel, ex.id)).filter((p) => p?.kind === 'sse');
      if (streams.length === 0)
        throw new CheckSkipped('the server answered with JSON bodies, not event streams');
      const open = streams.filter((p) => p !== undefined && !p.ended);
      if (open.length > 0) {
        throw failWith(
          `${open.length} event stream(s) answering a request were still open ${END_MS} ms after carrying the response`,
          'the answer stream ends after its last response',
          open.map(describePost).join('\n'),
          [channel],
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.answerBeforeClose,
    clause: `${CLAUSE}, Sending Messages to the Server`,
    description:
      'An event stream answering a POST is not ended before it carried the responses to its requests; under 2025-11-25, a server that ends it early (polling) sends a retry field first.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-03-26 and 2025-06-18: the server SHOULD NOT close the SSE stream before sending a JSON-RPC response per received request, unless the session expires. MCP 2025-11-25: the server MAY close it early once it sent an event with an id, and then SHOULD send an event with a retry field before closing. wirecheck continues such an answer with GET and Last-Event-ID, as a client does, so the response still counts for the other checks.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, ping, list } = await exercised(ctx);
      const streams = [ping, list]
        .map((ex) => [ex.id, postOf(channel, ex.id)] as const)
        .filter(([, p]) => p?.kind === 'sse');
      if (streams.length === 0)
        throw new CheckSkipped('the server answered with JSON bodies, not event streams');
      const polling = revisionAtLeast(channel.negotiated(), '2025-11-25');
      for (const [id, post] of streams) {
        const ends = post?.earlyEnds ?? [];
        const wrong = polling ? ends.filter((e) => !e.retry || !e.afterEventId) : ends;
        const first = wrong[0];
        if (first === undefined) continue;
        const what = `the event stream answering request ${id} ended before its response${ends.length === 1 ? '' : ` (${ends.length} times, each continued with GET and Last-Event-ID)`}`;
        const why = !polling
          ? `where under ${channel.negotiated() ?? 'the negotiated revision'} a server ends it only after the response (ending it early is the polling of 2025-11-25)`
          : !first.afterEventId
            ? 'before any event with an id, so a client cannot resume it'
            : 'with no retry field sent first';
        throw failWith(
          `${what}, ${why}`,
          polling
            ? 'an event with an id and a retry field before the stream ends early'
            : 'the answer stream ends after the response to its request',
          describePost(post),
          [channel],
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.sessionRequired,
    clause: `${CLAUSE}, Session Management`,
    description:
      'A server that requires the session id it issued answers a POST without Mcp-Session-Id (other than initialize) with 400 Bad Request; one that serves such a POST does not require it (skipped).',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-03-26: servers that require a session id SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await exercised(ctx);
      if (channel.sessionId() === undefined) throw new CheckSkipped('the server issued no session id');
      const headers = channel.sessionHeaders();
      delete headers[STREAMABLE_HTTP_HEADERS.sessionId];
      const answer = await channel.raw('POST', headers, JSON.stringify(request(nextId(), METHODS.ping)));
      // Served (an event stream opened for it, or the ping's result): the server issues ids
      // without requiring them, which the rule does not speak of. A 2xx carrying a JSON-RPC
      // error is a refusal, judged as one.
      if (servedPing(answer)) {
        throw new CheckSkipped(
          `the server serves a request without Mcp-Session-Id (${describeAnswer(answer)}): it does not require the session id it issues`,
        );
      }
      if (answer.status !== 400) {
        throw failWith(
          `a ping POSTed without Mcp-Session-Id was answered ${describeAnswer(answer)}`,
          'HTTP 400 Bad Request',
          describeAnswer(answer),
          [channel],
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.unknownSession404,
    clause: `${CLAUSE}, Session Management`,
    description: 'A POST naming a session id the server never issued is answered 404 Not Found.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-03-26 fixes 404 Not Found as the answer for a terminated session (a MUST) and has the client start a new session on it; an id the server never issued is not named there, so a server that answers something else for it warns (the official SDK answers 404).',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await exercised(ctx);
      if (channel.sessionId() === undefined) throw new CheckSkipped('the server issued no session id');
      const headers = {
        ...channel.sessionHeaders(),
        [STREAMABLE_HTTP_HEADERS.sessionId]: `wirecheck-${randomUUID()}`,
      };
      const answer = await channel.raw('POST', headers, JSON.stringify(request(nextId(), METHODS.ping)));
      if (answer.status !== 404) {
        throw failWith(
          `a ping POSTed for a session id the server never issued was answered ${describeAnswer(answer)}`,
          'HTTP 404 Not Found',
          describeAnswer(answer),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.http.deleted-session-404',
    clause: `${CLAUSE}, Session Management`,
    description:
      'After a DELETE the server accepted, a POST with that session id is answered 404 Not Found (a server may refuse DELETE with 405).',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: a client ends a session with HTTP DELETE (the server MAY answer 405 to refuse); once a session is terminated the server MUST respond to requests containing its id with 404 Not Found. Every Streamable HTTP server that issues session ids and accepts DELETE.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await session(ctx, 'http-delete');
      const id = channel.sessionId();
      if (id === undefined) throw new CheckSkipped('the server issued no session id');
      const del = await channel.raw('DELETE', channel.endHeaders());
      if (del.status === 405) throw new CheckSkipped('the server refuses DELETE with 405 (allowed)');
      if (del.status === undefined || del.status >= 300) {
        throw new NotExercised(`DELETE of the session was answered ${describeAnswer(del)}: nothing to judge`);
      }
      const after = await channel.raw(
        'POST',
        channel.sessionHeaders(),
        JSON.stringify(request(nextId(), METHODS.ping)),
      );
      if (after.status !== 404) {
        throw failWith(
          `after DELETE was answered ${describeAnswer(del)}, a ping POSTed with the same session id was answered ${describeAnswer(after)}`,
          'HTTP 404 Not Found',
          describeAnswer(after),
          [channel],
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.getStream,
    clause: `${CLAUSE}, Listening for Messages from the Server`,
    description:
      'GET on the endpoint (Accept: text/event-stream, the session id) opens an event stream or is answered 405 Method Not Allowed.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: the server MUST either return Content-Type text/event-stream in response to a GET on the endpoint, or HTTP 405 Method Not Allowed when it offers no such stream. Every Streamable HTTP server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await exercised(ctx);
      const answer = await channel.raw('GET', channel.streamHeaders());
      const type = mediaTypeOf(answer.headers['content-type'] as string | undefined);
      if (
        answer.status === 405 ||
        (answer.status === 200 && type === STREAMABLE_HTTP_CONTENT_TYPES.eventStream)
      )
        return;
      // No headers in time: a stream whose headers go out with its first event (not flushed)
      // shows nothing yet. A connection reset or refused is an answer, and no stream nor 405.
      if (answer.status === undefined && answer.problem?.startsWith('no answer within') === true) {
        throw new NotExercised(
          `GET on the endpoint got no answer headers (${describeAnswer(answer)}): neither a stream nor a refusal to judge`,
        );
      }
      throw failWith(
        `GET on the endpoint was answered ${describeAnswer(answer)}`,
        'HTTP 200 text/event-stream, or 405',
        describeAnswer(answer),
        [channel],
      );
    },
  },
  {
    id: EXERCISE_CHECKS.originRefused,
    clause: `${CLAUSE}, Security Warning`,
    description:
      'A POST whose Origin is a page of another site (DNS rebinding) is refused with an HTTP error (403 from 2025-11-25), where the same initialize without that Origin is not refused the same way; an answer of 429 or 5xx (a server at capacity) is asked again a few times and otherwise not judged.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks (2025-11-25: an invalid Origin MUST be answered 403 Forbidden). Every Streamable HTTP server. A refusal counts only when it is about the Origin: 429 and 5xx say the server cannot serve now (it may bound its sessions), and a status the same initialize without the Origin gets too says nothing about the Origin.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await exercised(ctx);
      const plain: Record<string, string> = { ...channel.sessionHeaders() };
      delete plain[STREAMABLE_HTTP_HEADERS.sessionId];
      const foreign = { ...plain, origin: FOREIGN_ORIGIN };
      const body = JSON.stringify(
        request(nextId(), METHODS.initialize, {
          protocolVersion: ctx.offeredVersion,
          capabilities: {},
          clientInfo: { name: 'wirecheck', version: '1' },
        }),
      );
      const answer = await untilServed(channel, foreign, body);
      if (answer.status === undefined) throw new NotExercised(`the POST got no answer (${answer.problem})`);
      if (notNow(answer.status)) {
        throw new NotExercised(
          `initialize POSTed with Origin ${FOREIGN_ORIGIN} was answered ${describeAnswer(answer)} ${ORIGIN_TRIES} times, ${ORIGIN_PAUSE_MS} ms or more apart: a server at capacity (or failing) refuses every new session so, whatever the Origin; nothing to judge`,
        );
      }
      const strict = revisionAtLeast(channel.negotiated(), '2025-11-25');
      if (answer.status < 400) {
        throw failWith(
          `initialize POSTed with Origin ${FOREIGN_ORIGIN} was answered ${describeAnswer(answer)}: the server does not validate Origin`,
          strict ? 'HTTP 403 Forbidden' : 'an HTTP error status (403)',
          describeAnswer(answer),
          [channel],
        );
      }
      // The control: the same initialize without the Origin. Refused with the same status, the
      // refusal was not about the Origin (a server taking no new session, say).
      const control = await untilServed(channel, plain, body);
      if (control.status === answer.status) {
        throw new NotExercised(
          `initialize POSTed with Origin ${FOREIGN_ORIGIN} was answered ${describeAnswer(answer)}, and the same initialize without an Origin was answered HTTP ${control.status} too: the refusal says nothing about the Origin`,
        );
      }
      if (strict && answer.status !== 403) {
        throw failWith(
          `initialize POSTed with Origin ${FOREIGN_ORIGIN} was answered ${describeAnswer(answer)} (without the Origin: ${describeAnswer(control)})`,
          'HTTP 403 Forbidden',
          describeAnswer(answer),
          [channel],
        );
      }
    },
  },
  {
    id: EXERCISE_CHECKS.protocolVersionHeader,
    clause: `${CLAUSE}, Protocol Version Header (2025-06-18 and later)`,
    description:
      'When the negotiated revision is 2025-06-18 or later, a POST with an MCP-Protocol-Version the server does not support is answered 400 Bad Request.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-06-18: if the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request. Every Streamable HTTP server of that revision or later.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel } = await exercised(ctx);
      const version = channel.negotiated();
      if (!revisionAtLeast(version, '2025-06-18')) {
        throw new CheckSkipped(
          `the negotiated revision is ${version ?? 'unknown'}, before the header existed (2025-06-18)`,
        );
      }
      const headers = {
        ...channel.sessionHeaders(),
        [STREAMABLE_HTTP_HEADERS.protocolVersion]: '1999-01-01',
      };
      const answer = await channel.raw('POST', headers, JSON.stringify(request(nextId(), METHODS.ping)));
      if (answer.status !== 400) {
        throw failWith(
          `a ping with MCP-Protocol-Version 1999-01-01 was answered ${describeAnswer(answer)}`,
          'HTTP 400 Bad Request',
          describeAnswer(answer),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.http.no-cross-session-reply',
    clause: `${CLAUSE}, Multiple Connections; spec "Errors" (responses routed to the wrong client)`,
    description: `Two sessions, each with its GET stream open where the server offers one, make ${CONCURRENT} concurrent calls each: every response arrives once, in the answer to the POST that asked, never on a GET stream or in another session.`,
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: the server MUST send each JSON-RPC message on only one of the connected streams (it MUST NOT broadcast), and MUST NOT send a response on a GET stream unless resuming; the spec counts responses routed to the wrong client as a server fault. Every Streamable HTTP server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const a = await session(ctx, 'http-routing-a');
      const b = await session(ctx, 'http-routing-b');
      const listeners = await Promise.all([a, b].map((c) => listen(c, ctx.httpMs)));
      try {
        const calls = [a, b].flatMap((channel, s) =>
          Array.from({ length: CONCURRENT }, (_, i) => {
            const text = `wirecheck-${s}-${i}-${randomUUID()}`;
            // Not counted for the silence watch: many pings at once may slow a server past the
            // budget, and one unanswered here is not judged (only where the answers went).
            return exchange(channel, METHODS.ping, { _meta: { wirecheck: text } }, ctx.replyMs, {
              countSilence: false,
            }).then((ex) => ({ channel, ex }));
          }),
        );
        const done = await Promise.all(calls);
        await Promise.all([a, b].map((c) => c.settle(END_MS)));
        await delay(200);
        const problems: string[] = [];
        const answered = done.filter(({ ex }) => ex.reply !== undefined);
        const talking = answered[0];
        if (talking !== undefined) noteExchange(talking.channel, METHODS.ping, talking.ex);
        for (const { channel, ex } of answered) {
          const post = postOf(channel, ex.id);
          const own = post?.responseCounts.get(ex.id) ?? 0;
          if (own !== 1) problems.push(`the answer to request ${ex.id} carried its response ${own} time(s)`);
        }
        for (const channel of [a, b]) {
          for (const post of channel.posts) {
            for (const m of post.messages) {
              const id = (m as { id?: unknown } | null)?.id;
              const isResponse = typeof m === 'object' && m !== null && ('result' in m || 'error' in m);
              if (isResponse && !post.text.includes(`"id":${JSON.stringify(id)}`)) {
                problems.push(
                  `the answer to a POST on ${channel.peer.label} carried a response it did not ask for: ${JSON.stringify(m).slice(0, 200)}`,
                );
              }
            }
          }
        }
        for (const l of listeners) {
          for (const m of l.responses())
            problems.push(`the GET stream of ${l.label} carried a response: ${m.slice(0, 200)}`);
          const more = l.count() - l.responses().length;
          if (more > 0) problems.push(`the GET stream of ${l.label} carried ${more} response(s) more`);
        }
        if (answered.length === 0 && problems.length === 0) {
          // No response anywhere is not a routing fault (tool-server.http.request-answer judges it).
          throw new NotExercised(
            `none of the ${done.length} concurrent pings got a response: ${done[0]?.ex.why}`,
          );
        }
        if (problems.length > 0) {
          throw failWith(
            `${problems.length} routing fault(s): ${problems.slice(0, 4).join('; ')}`,
            'each response once, in the answer to the POST that asked',
            problems.slice(0, 12).join('\n'),
            [a, b],
          );
        }
      } finally {
        for (const l of listeners) l.close();
        await Promise.all([a.close(), b.close()]);
      }
    },
  },
  ...resumptionChecks,
];

/** Responses seen on a GET stream that a listener keeps, each as a preview: one is already a fault. */
const MAX_KEPT_STRAY = 20;

/**
 * A session's GET stream, watched for responses (none may come on it) until `close`. Its
 * headers are waited for up to `ms`, so that the stream is open before the calls, but one whose
 * headers have not come by then is still read: a server may send them only with its first event
 * (Node does unless they are flushed), and a response it copies there comes with them. A server
 * with no GET stream (405, or any status but 200) gives a listener that sees nothing.
 */
async function listen(channel: StreamableChannel, ms: number) {
  const found: string[] = [];
  let count = 0;
  const opened = openEventStream(channel, channel.streamHeaders(), (data) => {
    // Text that is not JSON, or past the reader's limits, is no response it can judge.
    const parsed = parseJsonBounded(data);
    if (!parsed.ok) return;
    // A batch (2025-03-26) may carry responses too.
    for (const v of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) {
      if (typeof v !== 'object' || v === null || !('result' in v || 'error' in v)) continue;
      count += 1;
      if (found.length < MAX_KEPT_STRAY) found.push(clip(JSON.stringify(v), 200));
    }
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    void opened.answered.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { label: channel.peer.label, responses: () => [...found], count: () => count, close: opened.close };
}

/**
 * A GET read as an event stream from its response on, with no deadline on its headers: it
 * stays open until `close`. `answered` settles when the response (or an error) came.
 */
function openEventStream(
  channel: StreamableChannel,
  headers: Record<string, string>,
  onData: (data: string) => void,
): { answered: Promise<void>; close: () => void } {
  const req = startRequest(channel.url, { method: 'GET', agent: false, headers }, channel.targetHeaders);
  if (!('on' in req)) return { answered: Promise.resolve(), close: () => {} };
  const answered = new Promise<void>((resolve) => {
    req.on('error', () => resolve());
    req.on('response', (res) => {
      resolve();
      // `close` ends the stream mid-read: an abort of wirecheck's own, nothing to report.
      res.on('error', () => {});
      if (res.statusCode !== 200) {
        req.destroy();
        return;
      }
      let seen = 0;
      const decoder = createFrameDecoder({
        onFrame: (f) => {
          seen += 1;
          if (seen <= 1000) onData(f.data);
        },
        onLimit: () => req.destroy(),
      });
      res.on('data', (c: Buffer) => decoder.feed(c));
    });
  });
  req.end();
  return { answered, close: () => req.destroy() };
}
