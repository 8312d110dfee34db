import type { IncomingMessage, ServerResponse } from 'node:http';
import { chunkOf, roundMs } from '../../fixtures/chunks.js';
import {
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  type ResponseEnd,
  type ToolMessage,
  type ToolSession,
} from '../../fixtures/schema.js';
import { resolveEndpoint, SESSION_HEADER, sessionIdOf, TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';
import { createFrameDecoder } from '../../protocol/sse/index.js';
import { recordedReplyHeaders, replyCodingOf } from '../decoded-reply.js';
import { flatHeaders, forwardable, upstreamHeaders } from '../headers.js';
import {
  createChunkScrubber,
  isSecretName,
  maskSecrets,
  mergeSecrets,
  redactHeaders,
  redactTarget,
  scrubPrefix,
  scrubSecrets,
  scrubWindow,
  secretsOf,
  secretsOfTarget,
} from '../redact.js';
import { createPacer, createUpstream, readBoundedBody, startRelayServer } from '../relay-server.js';
import { type RecordedBody, recordedBody } from './decoded-body.js';
import { HOLD_LIMIT, rewriteFirstEndpoint } from './endpoint.js';
import { redactUrl, secretsOfUrl } from './redact-target.js';
import { openSessionLog, type SessionLog, type SessionSink } from './store.js';

export interface SseRecordingProxyOptions extends SessionSink {
  /** The real server's stream URL, e.g. `http://127.0.0.1:8000/sse`. */
  readonly upstream: string;
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** Largest POST body relayed (default 4 MiB, as the MCP SDK); larger gets 413. */
  readonly bodyLimit?: number;
  /** A POST for no session being recorded (relayed all the same). */
  readonly onUnmatchedPost?: (url: string) => void;
}

export interface SseRecordingProxy {
  /** The proxy's stream URL: give it to the client instead of the server's. */
  readonly url: string;
  /**
   * Every session recorded so far, in the order they ended: only without `outDir` (with it,
   * the files are the record and memory keeps no session).
   */
  readonly sessions: ToolSession[];
  /** Resolves once every session begun so far has ended and been written. */
  settled(): Promise<void>;
  /** Stop listening, cut open sessions (recorded as client-aborted) and wait for the files. */
  close(): Promise<void>;
}

interface LiveSession {
  /** Where the session is journaled (opened when the stream's headers arrive). */
  log: SessionLog | undefined;
  /** Where this session's POSTs go (the origin of the endpoint the server announced). */
  postOrigin: string;
  readonly since: () => number;
  readonly secrets: string[];
}

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** The origin a session's POSTs are relayed to, if the proxy can send there (http or https). */
function relayableOrigin(origin: string): URL | undefined {
  if (!URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/** Raw header pairs without those named like a credential (`authorization`, `x-api-key`, `cookie`...). */
function withoutCredentials(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!isSecretName(raw[i]!)) out.push(raw[i]!, raw[i + 1]!);
  return out;
}
const POST_BODY_KEPT = 500;
/** A stream quiet this long has the chunk the scrubber holds back journaled. */
const IDLE_MS = 20;

/**
 * A recording proxy in front of an SSE tool server. `GET` is relayed and, when it opens an
 * event stream, recorded as one session: every chunk of the stream as it arrived (comments
 * and the `endpoint` event included) with its time, and each `message` event as a
 * server->client message. The `endpoint` event is rewritten for the client only when it
 * names an absolute URL (a path already resolves against the proxy), keeping the session
 * id; the recording keeps the original. `POST`s are relayed with their status and body and
 * recorded in the session their session parameter names (`sessionId`, or `session_id` as
 * the Python SDK spells it). Raw node:http (as the messages proxy): bytes are relayed as
 * they come, one write per upstream chunk, Nagle off.
 */
export async function startSseRecordingProxy(options: SseRecordingProxyOptions): Promise<SseRecordingProxy> {
  const connections = createUpstream(options.upstream);
  const upstream = connections.url;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const send = connections.send;
  const live = new Map<string, LiveSession>();
  const sessions: ToolSession[] = [];
  const keepSessions = options.outDir === undefined;
  // A key written into the upstream URL (`?api_key=`, user info) is one the server may echo too.
  const given = mergeSecrets(options.secrets ?? [], secretsOfUrl(options.upstream));

  const relayStream = (req: IncomingMessage, res: ServerResponse, ended: () => void): void => {
    const requestHeaders = flatHeaders(req.headers);
    const secrets = mergeSecrets(given, secretsOf(requestHeaders), secretsOfTarget(req.url ?? '/'));
    // What the server sends is scrubbed of the client's secrets too (same length: chunk boundaries stay).
    const scrubber = createChunkScrubber(secrets);
    const chunkTimes: number[] = [];
    const recordedAt = new Date().toISOString();
    const t0 = performance.now();
    const since = () => roundMs(performance.now() - t0);
    const proxyOrigin = req.headers.host === undefined ? relay.origin : `http://${req.headers.host}`;
    const out = send(upstream, {
      method: 'GET',
      path: req.url ?? '/',
      headers: upstreamHeaders(req.rawHeaders, new Set(['host'])),
    });
    let finished = false;
    let clientGone = false;
    let status = 0;
    const session: LiveSession = { log: undefined, postOrigin: upstream.origin, since, secrets };
    let sessionId: string | undefined;
    let endpoint: string | undefined;
    /** The stream as the recording reads it: decoded, when the server compressed it anyway. */
    let body: RecordedBody | undefined;
    // The messages are read from the bytes as recorded (released by the scrubber, secrets
    // masked), each timed by the chunk that completed it: a journal cut by a kill never holds
    // a message whose bytes it does not hold.
    let recordedEndpoint = false;
    let releasedAtMs = 0;
    let idle: NodeJS.Timeout | undefined;
    const recorded = createFrameDecoder({
      onFrame: (frame) => {
        if (!recordedEndpoint && frame.event === TOOL_SSE_EVENTS.endpoint) {
          recordedEndpoint = true;
          return;
        }
        if (frame.event === undefined || frame.event === TOOL_SSE_EVENTS.message) {
          session.log?.message({
            atMs: releasedAtMs,
            direction: 'server->client',
            text: maskSecrets(frame.data, secrets),
          });
        }
      },
    });
    const keep = (released: Buffer[]) => {
      for (const bytes of released) {
        releasedAtMs = chunkTimes.shift() ?? since();
        session.log?.chunk(chunkOf(bytes, releasedAtMs));
        recorded.feed(bytes);
      }
    };
    const finish = (end: ResponseEnd) => {
      if (finished) return;
      finished = true;
      if (sessionId !== undefined) live.delete(sessionId);
      const log = session.log;
      if (status === 0 || log === undefined) {
        ended();
        return;
      }
      clearTimeout(idle);
      keep(scrubber.end());
      if (body?.why !== undefined) log.unrecorded(body.unrecorded, body.why);
      const endAtMs = since();
      const stored = log.end({
        endAtMs,
        stream: { end: clientGone && end === 'truncated' ? 'client-aborted' : end, endAtMs },
      });
      void relay
        .track(stored)
        .then(({ session: recorded }) => {
          if (recorded !== undefined && keepSessions) sessions.push(recorded);
        })
        .finally(ended);
    };
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      out.destroy();
      finish('client-aborted');
    });
    out.on('error', (e) => {
      if (status !== 0 || clientGone) return;
      const message = `wirecheck record: upstream ${upstream.origin} unreachable: ${(e as NodeJS.ErrnoException).code ?? e.message}`;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: message }));
      finish('complete');
    });
    out.on('response', (up) => {
      status = up.statusCode ?? 0;
      // The journal opens now: from here on a kill leaves the session so far.
      session.log = openSessionLog(
        {
          format: FIXTURE_FORMAT,
          version: FIXTURE_VERSION,
          kind: 'tool-session',
          recordedAt,
          source: 'wirecheck record tools --sse',
          transport: 'sse',
          server: redactUrl(upstream.href),
        },
        options,
      );
      const contentEncoding = up.headers['content-encoding'];
      const coding = replyCodingOf(contentEncoding);
      session.log.stream({
        path: redactTarget(req.url ?? '/', secrets),
        requestHeaders: redactHeaders(requestHeaders, secrets),
        status,
        // The chunks are recorded decoded: neither the coding nor the length describes them.
        headers: redactHeaders(recordedReplyHeaders(flatHeaders(up.headers), coding), secrets),
        headersAtMs: since(),
      });
      res.writeHead(status, up.statusMessage, forwardable(up.rawHeaders));
      res.flushHeaders();
      // The raw stream is read only for the endpoint, at once: the client POSTs as soon as it has it.
      let firstFrame = false;
      const routing = createFrameDecoder({
        onFrame: (frame) => {
          firstFrame = true;
          if (endpoint !== undefined || frame.event !== TOOL_SSE_EVENTS.endpoint) return;
          endpoint = frame.data;
          // Masked as the stream's chunks are, so the endpoint still equals the first event's data.
          session.log?.endpoint(maskSecrets(frame.data, secrets));
          const resolved = resolveEndpoint(frame.data, upstream.href);
          session.postOrigin = resolved.origin;
          // `sessionId`, or as the Python SDK and FastMCP name it (`session_id`): the client POSTs to the URL as announced.
          sessionId = sessionIdOf(resolved);
          if (sessionId !== undefined) live.set(sessionId, session);
        },
      });
      const rewriter = rewriteFirstEndpoint((data) =>
        /^[a-z][a-z0-9+.-]*:/i.test(data.trim())
          ? (() => {
              const resolved = resolveEndpoint(data, upstream.href);
              return `${proxyOrigin}${resolved.pathname}${resolved.search}`;
            })()
          : data,
      );
      // The upstream is paused while the client, the journal's disk or the decoder is behind.
      const pacer = createPacer(up);
      const write = (bytes: Uint8Array) => {
        if (bytes.length > 0 && !res.write(bytes)) pacer.client(res);
      };
      const log = session.log;
      const encoded = coding.kind !== 'identity';
      // A compressed stream reaches the client as it came (its endpoint cannot be rewritten), but
      // not before the recording has decoded its first frame: the client POSTs as soon as it has
      // the endpoint, and a POST the recorder cannot yet route is not recorded. Held as the
      // rewriter holds a plain stream's first frame.
      // A coding it does not decode has no frame to wait for: relayed at once.
      let held: Buffer[] | undefined = coding.kind === 'decoded' ? [] : undefined;
      let heldBytes = 0;
      const release = () => {
        if (held === undefined) return;
        const out = held;
        held = undefined;
        for (const chunk of out) write(chunk);
      };
      const recording = recordedBody(
        { header: contentEncoding, what: 'the event stream', limit: options.recordLimit, log },
        {
          data: (decoded) => {
            chunkTimes.push(since());
            keep(scrubber.push(decoded));
            // A stream that pauses (the last answer, then nothing) has its held chunk journaled anyway.
            clearTimeout(idle);
            idle = setTimeout(() => keep(scrubber.idle()), IDLE_MS);
            idle.unref();
            if (endpoint === undefined) routing.feed(decoded);
            if (firstFrame) release();
            // Past the journal's limit nothing more is kept: inflating the rest would be for nothing.
            if (encoded && log.full)
              recording.stop(
                `wirecheck record: the event stream (Content-Encoding: ${contentEncoding}) passed the recording limit once decoded, where decoding stopped: the rest was relayed to the client but not recorded`,
              );
          },
          stopped: release,
        },
      );
      body = recording;
      up.on('data', (chunk: Buffer) => {
        if (!recording.push(chunk)) pacer.decoder(recording.drained);
        pacer.disk(log);
        if (!encoded) write(rewriter.feed(chunk));
        else if (held === undefined) write(chunk);
        else {
          held.push(chunk);
          heldBytes += chunk.length;
          if (heldBytes > HOLD_LIMIT) release();
        }
      });
      up.on('end', () => {
        if (encoded) release();
        else write(rewriter.flush());
        res.end();
        // The session ends once the last bytes are decoded and recorded.
        void recording.end().then(() => finish(recording.why === undefined ? 'complete' : 'truncated'));
      });
      up.on('error', () => {});
      up.on('close', () => {
        if (up.complete) return;
        res.destroy();
        // What came before the cut is decoded and recorded, however late zlib gives it.
        void recording.end(true).then(() => finish('truncated'));
      });
    });
    out.end();
  };

  const relayPost = (req: IncomingMessage, res: ServerResponse, body: Buffer, ended: () => void): void => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const headerId = req.headers[SESSION_HEADER];
    const id = sessionIdOf(url) ?? (typeof headerId === 'string' ? headerId : undefined);
    const session = id === undefined ? undefined : live.get(id);
    if (session === undefined) options.onUnmatchedPost?.(redactTarget(req.url ?? '/', given));
    const secrets = [...(session?.secrets ?? []), ...secretsOf(flatHeaders(req.headers))];
    const message: ToolMessage | undefined = session && {
      atMs: session.since(),
      direction: 'client->server',
      text: scrubSecrets(body.toString('utf8'), secrets),
    };
    const index = message && session?.log?.message(message);
    const answered = (post: NonNullable<ToolMessage['post']>) => {
      if (index !== undefined) session?.log?.post(index, post);
    };
    const origin = session?.postOrigin ?? upstream.origin;
    const target = relayableOrigin(origin);
    if (target === undefined) {
      const text = `wirecheck record: the server announced an endpoint on ${origin}, which is not http(s)`;
      answered({ status: 502, body: text });
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: text }));
      ended();
      return;
    }
    const forwarded = upstreamHeaders(req.rawHeaders, new Set(['host', 'content-length']));
    const out = send(target, {
      method: req.method ?? 'POST',
      path: req.url ?? '/',
      // The client sent its credentials to the proxy, which stands for the upstream's origin:
      // they do not follow an endpoint the server points elsewhere.
      headers: (target.origin === upstream.origin ? forwarded : withoutCredentials(forwarded)).concat(
        'content-length',
        String(body.length),
      ),
    });
    out.on('error', (e) => {
      const text = `wirecheck record: upstream unreachable: ${(e as NodeJS.ErrnoException).code ?? e.message}`;
      answered({ status: 502, body: text });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: text }));
      ended();
    });
    out.on('response', (up) => {
      // Relayed as it comes; only its beginning is kept for the recording.
      res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardable(up.rawHeaders));
      const kept: Buffer[] = [];
      let keptBytes = 0;
      // Bytes enough for the characters kept and the rest of a secret begun before the cut (4 bytes a character at most).
      const keptLimit = 4 * scrubWindow(Number.POSITIVE_INFINITY, secrets, POST_BODY_KEPT);
      const pacer = createPacer(up);
      // The answer is kept decoded (when the server compressed it anyway), and only its start.
      const answer = recordedBody(
        { header: up.headers['content-encoding'], what: 'the POST answer' },
        {
          data: (decoded) => {
            if (keptBytes >= keptLimit) return;
            kept.push(decoded);
            keptBytes += decoded.length;
            // The start is all that is kept: the rest is not inflated.
            if (keptBytes >= keptLimit && answer.coding.kind === 'decoded')
              answer.stop('wirecheck record: only the start of a POST answer is recorded');
          },
        },
      );
      up.on('data', (b: Buffer) => {
        if (!answer.push(b)) pacer.decoder(answer.drained);
        if (!res.write(b)) pacer.client(res);
      });
      up.on('error', () => {});
      up.on('end', () => {
        // The client's answer ends once it is recorded, as an answer in no coding: a client that
        // ends the session on it must not end it before its messages are in.
        void answer.end().then(() => {
          // Past the start kept, decoding stopped by design: only a coding it cannot read leaves the answer unrecorded.
          const unread = answer.why !== undefined && keptBytes < keptLimit && answer.unrecorded > 0;
          // Scrubbed before the cut: a secret across it is replaced whole, not cut and its start kept.
          const start = scrubPrefix(Buffer.concat(kept).toString('utf8'), secrets, POST_BODY_KEPT);
          answered({ status: up.statusCode ?? 502, body: unread ? answer.why! : start });
          if (unread) session?.log?.unrecorded(answer.unrecorded, answer.why!);
          res.end();
          ended();
        });
      });
      up.on('close', () => {
        if (up.complete) return;
        res.destroy();
        answer.stop('wirecheck record: the POST answer was cut by the server');
        ended();
      });
    });
    out.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    void relay.track(
      (async () => {
        if (req.method === 'GET') {
          req.resume();
          await new Promise<void>((ended) => relayStream(req, res, ended));
          return;
        }
        const tooLarge = JSON.stringify({ error: `body exceeds ${bodyLimit} bytes (recording proxy limit)` });
        const body = await readBoundedBody(req, res, bodyLimit, tooLarge);
        if (body !== undefined) await new Promise<void>((ended) => relayPost(req, res, body, ended));
      })(),
    );
  };

  const relay = await startRelayServer(handle, options);
  return {
    url: `${relay.origin}${upstream.pathname}${upstream.search}`,
    sessions,
    settled: () => relay.settled(),
    async close() {
      await relay.stop();
      await relay.settled();
      connections.destroy();
    },
  };
}
