import { createHash } from 'node:crypto';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import { detach } from '../../protocol/clip.js';
import { HeldBytes } from '../../protocol/held-line.js';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { bodyMessages, type JsonRpcId } from '../../protocol/jsonrpc/index.js';
import {
  mediaTypeOf,
  revisionAtLeast,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../../protocol/mcp/index.js';
import { createFrameDecoder, type SseLimits } from '../../protocol/sse/index.js';
import { nodeHttp as http } from '../../transports/node-http.js';
import { cappedAnswers } from './answer-cap.js';
import type { Channel, PostOutcome } from './channel.js';
import type { WireVocabulary } from './diagnosis.js';
import { openGet, startRequest, type TargetHeaders } from './http.js';
import { RpcPeer } from './peer.js';

/** Bytes of a JSON answer or of an error body read; past it the answer is cut off (a protocol failure). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Bytes of JSON answers one channel holds while they are still being read; past it the answer read is cut. */
export const MAX_BUFFERED_ANSWER_BYTES = 64 * 1024 * 1024;
/** Answer streams (event streams of POSTs) one channel keeps open at once; past it the oldest is cut. */
export const MAX_OPEN_ANSWER_STREAMS = 256;
/** Continuations of one answer stream that ended before its responses (GET with Last-Event-ID). */
const MAX_ANSWER_RESUMES = 3;
/** The longest `retry:` waited before a continuation. */
const MAX_RESUME_WAIT_MS = 5000;
/** POSTs whose record a channel keeps (the rest are counted). */
export const MAX_KEPT_POSTS = 10_000;
/**
 * JSON-RPC messages a channel keeps in its POST records, responses and the rest counted apart
 * (an answer stream may carry notifications without end; the responses are what checks judge).
 * Past them a message still reaches the peer, which bounds what it keeps, and is counted in
 * its record's `dropped`.
 */
export const MAX_KEPT_MESSAGES = { responses: 10_000, others: 10_000 } as const;
/** Characters of message text a channel keeps in its POST records, whatever the count (16 Mi). */
export const MAX_KEPT_MESSAGE_CHARS = 16 * 1024 * 1024;
/** Events an answer stream's record keeps (the rest are counted in `eventsSeen`). */
export const MAX_KEPT_EVENTS = 1000;
/**
 * Characters of events (data, id and name) a channel keeps in its POST records, whatever the count
 * (4 Mi): before this bound, up to 1,000 events of 4 KiB per answer were kept outside every
 * channel budget. What all sessions keep together is bounded by the pool (kept-text.ts).
 */
export const MAX_KEPT_EVENT_CHARS = 4 * 1024 * 1024;
/**
 * Event ids a channel keeps in its POST records, past the events it keeps: whether ids are unique
 * across a session is judged by every id, and a chatty answer's later ids are past MAX_KEPT_EVENTS.
 * 1 Mi characters of them in all at most.
 */
export const MAX_KEPT_EVENT_IDS = 100_000;
const MAX_KEPT_EVENT_ID_CHARS = 1024 * 1024;
/** Characters of an event id kept as they are; a longer id is kept as its start and its hash. */
export const MAX_EVENT_ID_CHARS = 256;

/**
 * An event id as a record keeps it: as it is within MAX_EVENT_ID_CHARS, else its first 64
 * characters and the SHA-256 of the whole, so that two long ids are the same kept id only when
 * they are the same id (cut at a length, ids differing at their end would read as one).
 */
export function keptEventId(id: string): string {
  if (id.length <= MAX_EVENT_ID_CHARS) return detach(id);
  const hash = createHash('sha256').update(id).digest('hex');
  return `${detach(id.slice(0, 64))}... (${id.length} characters, sha256 ${hash})`;
}

export const STREAMABLE_WORDS: WireVocabulary = { source: 'the POST answers', unit: 'message' };

/** The header every POST of the harness sends: both answer types, as the revision text asks of a client. */
export const POST_ACCEPT = `${STREAMABLE_HTTP_CONTENT_TYPES.json}, ${STREAMABLE_HTTP_CONTENT_TYPES.eventStream}`;

const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

/** What one POST of the channel got: its HTTP answer and the JSON-RPC messages it carried. */
export interface StreamablePost {
  readonly text: string;
  readonly status: number | undefined;
  readonly headers: IncomingHttpHeaders;
  /** `json`, `sse`, `empty` (no body), `other` (a body of another type), undefined when no answer came. */
  kind: 'json' | 'sse' | 'empty' | 'other' | undefined;
  /** The body (JSON and other answers), cut at MAX_ANSWER_BYTES; event streams leave it empty. */
  body: string;
  /**
   * SSE answers: the events as seen, whole, within MAX_KEPT_EVENTS and the channel's
   * MAX_KEPT_EVENT_CHARS; past them an event is counted only.
   */
  readonly events: { id: string | undefined; event: string | undefined; data: string }[];
  /** SSE answers: every event the answer carried, kept or not. */
  eventsSeen: number;
  /** SSE answers: the non-empty id of every event, kept or not, within MAX_KEPT_EVENT_IDS. */
  readonly eventIds: string[];
  /** SSE answers: event ids past those the channel keeps, counted only. */
  eventIdsDropped: number;
  /** JSON-RPC messages the answer carried, in order (within the channel's MAX_KEPT_MESSAGES and MAX_KEPT_MESSAGE_CHARS). */
  readonly messages: unknown[];
  /** Messages the answer carried past those bounds: read and counted, not kept. */
  dropped: number;
  /**
   * For each request the POST carried, how many responses with its id the answer carried,
   * every one counted whether kept or not: what a check judges "answered once" by.
   */
  readonly responseCounts: Map<JsonRpcId, number>;
  /** The answer is complete (body ended, or the event stream ended). */
  ended: boolean;
  /**
   * SSE answers: each time the answer stream (or its continuation) ended with a request of the
   * POST unanswered, whether that stream sent a `retry` field and whether an event id had come
   * (at most MAX_ANSWER_RESUMES + 1 entries).
   */
  readonly earlyEnds: { readonly retry: boolean; readonly afterEventId: boolean }[];
  problem?: string;
}

/** A raw HTTP exchange of a check: status, headers, and the body when it is not an event stream. */
export interface RawAnswer {
  readonly status: number | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly problem?: string;
}

export interface StreamableChannel extends Channel {
  readonly transport: 'http';
  readonly url: URL;
  /** `--header`s: a check's own request to the endpoint sends them too. */
  readonly targetHeaders: TargetHeaders | undefined;
  /** The session id the initialize answer issued (undefined before, or when the server issues none). */
  sessionId(): string | undefined;
  /** The protocol version of the initialize result, once it came. */
  negotiated(): string | undefined;
  /** Every POST's record, oldest first. */
  readonly posts: StreamablePost[];
  /** A request of the check's own making on the endpoint (no session header unless given). */
  raw(method: string, headers: Record<string, string>, body?: string, timeoutMs?: number): Promise<RawAnswer>;
  /** The headers a POST of this session sends (Accept, Content-Type, session id, protocol version). */
  sessionHeaders(): Record<string, string>;
  /**
   * The headers of a GET on this session: a stream of its own, or with `lastEventId` one that
   * resumes after that event (Accept, session id, protocol version).
   */
  streamHeaders(lastEventId?: string): Record<string, string>;
  /** The headers of a DELETE that ends this session (session id, protocol version). */
  endHeaders(): Record<string, string>;
  /** Wait until every answer stream of the channel ended, or `ms` passed. */
  settle(ms: number): Promise<void>;
}

export interface StreamableOpenOptions {
  readonly label: string;
  /** Budget for a POST's response headers (and a JSON body); a request's answer budget, when longer, replaces it (sendText). */
  readonly postTimeoutMs: number;
  /** The protocol version the harness offers in initialize on this channel. */
  readonly protocolVersion: string;
  readonly limits?: SseLimits;
  /** MAX_BUFFERED_ANSWER_BYTES unless given (tests). */
  readonly maxBufferedAnswerBytes?: number;
  /** `--header`s, sent with every request of the session. */
  readonly targetHeaders?: TargetHeaders;
}

/**
 * A Streamable HTTP session with the server under test: every message is one POST to the
 * endpoint; the answer (a JSON body or an event stream) feeds the peer. The session id the
 * initialize answer carries is sent on every later POST, and `MCP-Protocol-Version` from
 * 2025-06-18 on. Reading is bounded: JSON bodies at MAX_ANSWER_BYTES each and
 * MAX_BUFFERED_ANSWER_BYTES in all, and in time by the answer's budget; event streams by the
 * SSE decoder's limits, open answer streams by count.
 */
export function openStreamableChannel(endpoint: string, options: StreamableOpenOptions): StreamableChannel {
  const url = new URL(endpoint);
  let session: string | undefined;
  let version: string | undefined;
  let ended: string | undefined;
  const posts: StreamablePost[] = [];
  const kept = { responses: 0, others: 0, chars: 0, eventChars: 0, eventIds: 0, eventIdChars: 0 };
  const open = new Set<ClientRequest>();
  const settleWaiters = new Set<() => void>();
  const peer: RpcPeer = new RpcPeer(
    options.label,
    cappedAnswers((text) => sendText(text)),
    STREAMABLE_WORDS,
  );

  // Every request after initialize carries the session, and from 2025-06-18 the negotiated
  // revision (MCP 2025-06-18, Transports: the client MUST send MCP-Protocol-Version on all of them).
  const endHeaders = (): Record<string, string> => {
    const h: Record<string, string> = {};
    if (session !== undefined) h[STREAMABLE_HTTP_HEADERS.sessionId] = session;
    if (version !== undefined && revisionAtLeast(version, '2025-06-18'))
      h[STREAMABLE_HTTP_HEADERS.protocolVersion] = version;
    return h;
  };

  const sessionHeaders = (): Record<string, string> => ({
    accept: POST_ACCEPT,
    'content-type': STREAMABLE_HTTP_CONTENT_TYPES.json,
    ...endHeaders(),
  });

  const streamHeaders = (lastEventId?: string): Record<string, string> => {
    const h: Record<string, string> = { accept: STREAMABLE_HTTP_CONTENT_TYPES.eventStream, ...endHeaders() };
    // An event id is any text; a header value is bytes, which Node writes from a string as latin1.
    // The id's UTF-8 bytes go out, as EventSource sends them (WHATWG HTML: Last-Event-ID).
    if (lastEventId !== undefined)
      h[STREAMABLE_HTTP_HEADERS.lastEventId] = Buffer.from(lastEventId, 'utf8').toString('latin1');
    return h;
  };

  const deliver = (record: StreamablePost, text: string) => {
    const parsed = parseJsonBounded(text);
    if (!parsed.ok) {
      peer.receive(text, undefined, false, {
        kind: parsed.reason === 'too-deep' ? 'too-deep' : 'not-json',
        detail: parsed.message,
      });
      return;
    }
    const values = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    // A batch's members share its text's length, near enough for a budget.
    const chars = Math.ceil(text.length / Math.max(1, values.length));
    for (const value of values) {
      const kind =
        typeof value === 'object' && value !== null && ('result' in value || 'error' in value)
          ? 'responses'
          : 'others';
      const id = (kind === 'responses' ? (value as { id?: unknown }).id : undefined) as JsonRpcId;
      const count = record.responseCounts.get(id);
      if (count !== undefined) record.responseCounts.set(id, count + 1);
      if (
        kept[kind] < MAX_KEPT_MESSAGES[kind] &&
        kept.chars + chars <= MAX_KEPT_MESSAGE_CHARS &&
        peer.keptText.take(chars)
      ) {
        kept[kind] += 1;
        kept.chars += chars;
        record.messages.push(value);
      } else record.dropped += 1;
      noteInitializeResult(value);
      peer.receive(Array.isArray(parsed.value) ? JSON.stringify(value) : text, value, true);
    }
  };

  const noteInitializeResult = (value: unknown) => {
    const result = (value as { result?: { protocolVersion?: unknown; serverInfo?: unknown } } | null)?.result;
    if (
      version === undefined &&
      typeof result?.protocolVersion === 'string' &&
      result.serverInfo !== undefined
    )
      version = result.protocolVersion;
  };

  /** Bytes of the JSON answers being read (MAX_BUFFERED_ANSWER_BYTES). */
  let buffered = 0;
  const maxBuffered = options.maxBufferedAnswerBytes ?? MAX_BUFFERED_ANSWER_BYTES;
  /** Answers being continued (a GET with Last-Event-ID on its way): not settled yet. */
  let resumingAnswers = 0;
  const wakeSettle = () => {
    if (open.size > 0 || resumingAnswers > 0) return;
    for (const w of [...settleWaiters]) w();
  };

  function sendText(text: string, answerWithinMs = 0): Promise<PostOutcome> {
    const waitMs = Math.max(options.postTimeoutMs, answerWithinMs);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    peer.recordSent(text, value);
    const record: StreamablePost = {
      text: text.length > 4096 ? `${text.slice(0, 4096)}...` : text,
      status: undefined,
      headers: {},
      kind: undefined,
      body: '',
      events: [],
      eventsSeen: 0,
      eventIds: [],
      eventIdsDropped: 0,
      messages: [],
      dropped: 0,
      responseCounts: new Map(),
      ended: false,
      earlyEnds: [],
    };
    if (posts.length < MAX_KEPT_POSTS) posts.push(record);
    const sentSession = session;
    const asked = requestIds(value);
    for (const id of asked) record.responseCounts.set(id, 0);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: PostOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      // The last event id and retry of the answer, for a stream that ends before its responses.
      let lastEventId: string | undefined;
      let retryMs: number | undefined;
      let resumes = 0;
      const unanswered = () => asked.some((id) => (record.responseCounts.get(id) ?? 0) === 0);
      /**
       * The events of the POST's answer stream, or of its continuation (a GET with Last-Event-ID
       * `resumedAfter`, whose event a server may send again: the same event, so its id is not one
       * given twice; resume-replays-after judges the replay).
       */
      const readEvents = (res: IncomingMessage, resumedAfter?: string) => {
        let retrySent = false;
        const decoder = createFrameDecoder({
          ...(options.limits === undefined ? {} : { limits: options.limits }),
          onFrame(frame) {
            record.eventsSeen += 1;
            if (frame.id !== undefined && frame.id !== '' && frame.id !== resumedAfter) {
              lastEventId = frame.id;
              const id = keptEventId(frame.id);
              if (
                kept.eventIds < MAX_KEPT_EVENT_IDS &&
                kept.eventIdChars + id.length <= MAX_KEPT_EVENT_ID_CHARS &&
                peer.keptText.take(id.length)
              ) {
                kept.eventIds += 1;
                kept.eventIdChars += id.length;
                record.eventIds.push(id);
              } else record.eventIdsDropped += 1;
            }
            const chars = frame.data.length + (frame.id?.length ?? 0) + (frame.event?.length ?? 0);
            if (
              record.events.length < MAX_KEPT_EVENTS &&
              kept.eventChars + chars <= MAX_KEPT_EVENT_CHARS &&
              peer.keptText.take(chars)
            ) {
              kept.eventChars += chars;
              record.events.push({
                id: frame.id === undefined ? undefined : detach(frame.id),
                event: frame.event === undefined ? undefined : detach(frame.event),
                data: detach(frame.data),
              });
            }
            const name = frame.event ?? 'message';
            if (name === 'message' && frame.data !== '') deliver(record, frame.data);
          },
          onRetry(ms) {
            retryMs = ms;
            retrySent = true;
          },
          onLimit(error) {
            cut(error.head, error.message);
          },
        });
        res.on('data', (chunk: Buffer) => {
          peer.wire.bytesIn(chunk);
          decoder.feed(chunk);
        });
        res.on('end', () => {
          decoder.end();
          if (!cutOff && unanswered())
            record.earlyEnds.push({ retry: retrySent, afterEventId: lastEventId !== undefined });
          void resume();
        });
      };
      /**
       * MCP resumability (2025-03-26 on; 2025-11-25 lets a server end an answer stream before its
       * response once it sent an event id, polling): an answer that ended with requests unanswered
       * and an event id seen is continued with GET and Last-Event-ID, as a client does, a few times.
       */
      const resume = async () => {
        if (cutOff || lastEventId === undefined || !unanswered() || resumes >= MAX_ANSWER_RESUMES) return;
        resumes += 1;
        resumingAnswers += 1;
        try {
          await new Promise((r) => setTimeout(r, Math.min(retryMs ?? 0, MAX_RESUME_WAIT_MS)));
          const resumedAfter = lastEventId;
          const got = await openGet(url, streamHeaders(resumedAfter), waitMs, options.targetHeaders);
          if ('problem' in got) return;
          const type = mediaTypeOf(got.res.headers['content-type']);
          if (got.res.statusCode !== 200 || type !== STREAMABLE_HTTP_CONTENT_TYPES.eventStream) {
            got.req.destroy();
            return;
          }
          open.add(got.req);
          const limit = setTimeout(() => got.req.destroy(), waitMs);
          got.req.on('close', () => {
            clearTimeout(limit);
            open.delete(got.req);
            wakeSettle();
          });
          readEvents(got.res, resumedAfter);
        } finally {
          resumingAnswers -= 1;
          wakeSettle();
        }
      };
      const req = startRequest(
        url,
        {
          method: 'POST',
          agent: url.protocol === 'https:' ? agents.https : agents.http,
          headers: { ...sessionHeaders(), 'content-length': String(Buffer.byteLength(text)) },
        },
        options.targetHeaders,
      );
      if (!('on' in req)) {
        record.problem = req.problem;
        record.ended = true;
        finish({ status: undefined, body: '', contentType: undefined, problem: req.problem });
        return;
      }
      open.add(req);
      if (open.size > MAX_OPEN_ANSWER_STREAMS) {
        const oldest = open.values().next().value;
        oldest?.destroy();
      }
      const done = () => {
        record.ended = true;
        open.delete(req);
        wakeSettle();
      };
      // An answer past a reading limit is cut: the replies it would carry will not come. Only
      // this answer ends; the session goes on (each POST has its own answer), so the channel's
      // diagnosis counts it as a problem, not as the end of reading.
      let cutOff = false;
      const cut = (head: string, detail: string, overLimit = true) => {
        cutOff = true;
        if (overLimit) peer.wire.problem('over-limit', head, detail);
        record.problem = `wirecheck cut the answer: ${detail}`;
        peer.unreadable(asked, `wirecheck stopped reading the answer to its POST: ${detail}`);
        req.destroy();
      };
      /** A body still being read when the answer's time is up (set while one is). */
      let lateBody: (() => void) | undefined;
      const timer = setTimeout(() => {
        if (record.status !== undefined) {
          lateBody?.();
          return;
        }
        record.problem = `no response within ${waitMs} ms`;
        req.destroy();
        finish({ status: undefined, body: '', contentType: undefined, problem: record.problem });
      }, waitMs);
      req.on('error', (e) => {
        record.problem ??= e.message;
        done();
        if ('code' in e && e.code === 'ECONNREFUSED')
          ended ??= `the server refused the connection (${e.message})`;
        finish({ status: undefined, body: '', contentType: undefined, problem: e.message });
      });
      req.on('close', done);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        (record as { status: number | undefined }).status = status;
        (record as { headers: IncomingHttpHeaders }).headers = res.headers;
        const issued = res.headers[STREAMABLE_HTTP_HEADERS.sessionId];
        if (session === undefined && typeof issued === 'string' && status < 300) session = issued;
        if (status === 404 && sentSession !== undefined) {
          ended ??= `the server answered 404 for session ${sentSession}: it ended the session`;
        }
        const type = mediaTypeOf(res.headers['content-type']);
        if (type === STREAMABLE_HTTP_CONTENT_TYPES.eventStream) {
          record.kind = 'sse';
          readEvents(res);
          finish({ status, body: '', contentType: res.headers['content-type'] });
          return;
        }
        const held = new HeldBytes();
        let bytes = 0;
        const release = () => {
          buffered -= bytes;
          bytes = 0;
          held.clear();
          lateBody = undefined;
        };
        const cutBody = (detail: (head: string) => string, chunk?: Buffer, overLimit = true) => {
          const first = held.length > 0 ? held.head(120) : chunk;
          const head = first === undefined ? '' : Buffer.from(first.subarray(0, 120)).toString('utf8');
          // Said before release(), which forgets the bytes the detail counts.
          const said = detail(head);
          release();
          cut(head, said, overLimit);
          finish({ status, body: '', contentType: res.headers['content-type'], problem: record.problem });
        };
        // The body is read within the answer's time too: one that trickles or stalls after its
        // headers would hold the exchange (and its bytes) until the check's budget.
        lateBody = () =>
          cutBody(
            (head) =>
              `an answer body still coming ${waitMs} ms after the POST (${bytes} bytes read, starting ${JSON.stringify(head)})`,
            undefined,
            false,
          );
        res.on('data', (chunk: Buffer) => {
          // A chunk already in flight when the answer was cut is not read.
          if (cutOff) return;
          peer.wire.bytesIn(chunk);
          if (bytes + chunk.length > MAX_ANSWER_BYTES) {
            const total = bytes + chunk.length;
            cutBody(
              (head) =>
                `an answer body longer than the ${MAX_ANSWER_BYTES}-byte limit (MAX_ANSWER_BYTES): more than ${total} bytes, starting ${JSON.stringify(head)}`,
              chunk,
            );
            return;
          }
          if (buffered + chunk.length > maxBuffered) {
            cutBody(
              (head) =>
                `answer bodies being read at once past the channel's ${maxBuffered}-byte limit (MAX_BUFFERED_ANSWER_BYTES); this one reached ${bytes + chunk.length} bytes, starting ${JSON.stringify(head)}`,
              chunk,
            );
            return;
          }
          bytes += chunk.length;
          buffered += chunk.length;
          held.add(chunk, false);
        });
        res.on('close', () => {
          if (lateBody !== undefined) release();
        });
        res.on('end', () => {
          if (cutOff) return;
          const body = held.text();
          release();
          record.body = body.length > 64 * 1024 ? `${body.slice(0, 64 * 1024)}...` : body;
          record.kind =
            body === '' ? 'empty' : type === STREAMABLE_HTTP_CONTENT_TYPES.json ? 'json' : 'other';
          // A JSON answer with a success status carries messages; an error status's JSON-RPC body
          // (a parse error with id null, say) is an answer too.
          if (record.kind === 'json') deliver(record, body);
          finish({ status, body: record.body, contentType: res.headers['content-type'] });
        });
        res.on('error', () =>
          finish({
            status,
            body: Buffer.from(held.head(Math.min(held.length, 64 * 1024))).toString('utf8'),
            contentType: res.headers['content-type'],
          }),
        );
      });
      req.end(text);
    });
  }

  const raw = (method: string, headers: Record<string, string>, body?: string, timeoutMs?: number) =>
    rawRequest(url, method, headers, body, timeoutMs ?? options.postTimeoutMs, options.targetHeaders);

  return {
    transport: 'http',
    url,
    targetHeaders: options.targetHeaders,
    peer,
    posts,
    protocolVersion: options.protocolVersion,
    sessionId: () => session,
    negotiated: () => version,
    sessionHeaders,
    streamHeaders,
    endHeaders,
    sendText,
    raw,
    gone: () => ended,
    diagnosis: () => peer.wire.diagnosis(),
    settle(ms) {
      if (open.size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          settleWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        settleWaiters.add(done);
      });
    },
    async close() {
      ended ??= 'the harness closed the session';
      peer.keptText.release();
      for (const req of open) req.destroy();
      open.clear();
      if (session !== undefined) {
        // Polite end of the session (the revision text: a client SHOULD send DELETE); its answer is not judged here.
        await raw('DELETE', endHeaders(), undefined, 1000).catch(() => {});
      }
    },
  };
}

/**
 * One HTTP request with a bounded wait and body: an event-stream answer resolves at its headers
 * (the stream is then cut), any other answer when its body ended (cut at 64 KiB).
 */
export function rawRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  targetHeaders?: TargetHeaders,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const req = startRequest(
      url,
      {
        method,
        agent: false,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      targetHeaders,
    );
    if (!('on' in req)) {
      resolve({ status: undefined, headers: {}, body: '', problem: req.problem });
      return;
    }
    let settled = false;
    const finish = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish({ status: undefined, headers: {}, body: '', problem: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    req.on('error', (e) => finish({ status: undefined, headers: {}, body: '', problem: e.message }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (mediaTypeOf(res.headers['content-type']) === STREAMABLE_HTTP_CONTENT_TYPES.eventStream) {
        finish({ status, headers: res.headers, body: '' });
        return;
      }
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (text.length > 64 * 1024) finish({ status, headers: res.headers, body: text.slice(0, 64 * 1024) });
      });
      res.on('end', () => finish({ status, headers: res.headers, body: text }));
      res.on('error', () => finish({ status, headers: res.headers, body: text }));
    });
    req.end(body);
  });
}

/** The ids of the requests a POST's body carries (one message or a batch). */
function requestIds(value: unknown): JsonRpcId[] {
  if (value === undefined) return [];
  return bodyMessages(value).flatMap((m) => (m.kind === 'request' ? [m.message.id] : []));
}
