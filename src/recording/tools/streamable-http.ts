import type { IncomingMessage, ServerResponse } from 'node:http';
import { roundMs } from '../../fixtures/chunks.js';
import {
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  type ToolMessage,
  type ToolSession,
} from '../../fixtures/schema.js';
import { parseJsonBounded } from '../../protocol/json/bounded.js';
import { METHODS } from '../../protocol/mcp/index.js';
import {
  mediaTypeOf,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../../protocol/mcp/streamable-http.js';
import { createFrameDecoder } from '../../protocol/sse/index.js';
import { flatHeaders, forwardable, upstreamHeaders } from '../headers.js';
import { maskSecrets, mergeSecrets, redactTarget, scrubPrefix, scrubSecrets, secretsOf } from '../redact.js';
import { createPacer, createUpstream, readBoundedBody, startRelayServer } from '../relay-server.js';
import { recordedBody } from './decoded-body.js';
import { redactUrl, secretsOfUrl } from './redact-target.js';
import type { SseRecordingProxy } from './sse.js';
import { openSessionLog, type SessionLog, type SessionSink } from './store.js';

export interface StreamableHttpRecordingProxyOptions extends SessionSink {
  /** The real server's endpoint, e.g. `http://127.0.0.1:8000/mcp`. */
  readonly upstream: string;
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** Largest POST body relayed (default 4 MiB, as the MCP SDK); larger gets 413. */
  readonly bodyLimit?: number;
  /** A request that names no session being recorded (relayed all the same). */
  readonly onUnmatched?: (what: string) => void;
}

interface LiveSession {
  /** Where the session is journaled as it happens. */
  readonly log: SessionLog;
  readonly since: () => number;
  /** The id the server issued (undefined: a server without sessions). */
  id: string | undefined;
  ended: boolean;
}

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
const POST_BODY_KEPT = 500;

function isInitialize(text: string): boolean {
  try {
    const value = JSON.parse(text) as { method?: unknown };
    return value !== null && typeof value === 'object' && value.method === METHODS.initialize;
  } catch {
    return false;
  }
}

/**
 * A recording proxy in front of a Streamable HTTP tool server (MCP 2025-03-26 and later).
 * Every request is relayed to the one upstream endpoint as it came, and its answer back
 * chunk by chunk (Nagle off). A session begins with a POSTed `initialize` (its origin, time
 * 0) and is the one the `Mcp-Session-Id` of that answer names: every message of it is
 * recorded in order, POSTed ones client->server (with the POST's status and, for a JSON
 * answer, its body cut to 500 characters), and server->client each message of a JSON answer
 * and each `message` event of an answer stream or GET stream. A DELETE, or a 404 to a
 * request of the session, ends it, and so does closing the proxy; then its fixture
 * (transport `http`) is written. Credentials of a request (headers named like a secret,
 * their values) are scrubbed from what is recorded of it, as the SSE proxy does.
 */
export async function startStreamableHttpRecordingProxy(
  options: StreamableHttpRecordingProxyOptions,
): Promise<SseRecordingProxy> {
  const connections = createUpstream(options.upstream);
  const upstream = connections.url;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const byId = new Map<string, LiveSession>();
  /** The latest session of a server that issues no ids (its requests carry none). */
  let anonymous: LiveSession | undefined;
  const all = new Set<LiveSession>();
  const sessions: ToolSession[] = [];
  const keepSessions = options.outDir === undefined;
  // A key written into the upstream URL (`?api_key=`, user info) is sent upstream with every request, and may be echoed.
  const given = mergeSecrets(options.secrets ?? [], secretsOfUrl(options.upstream));

  const finish = (session: LiveSession) => {
    if (session.ended) return;
    session.ended = true;
    all.delete(session);
    if (session.id !== undefined) byId.delete(session.id);
    if (anonymous === session) anonymous = undefined;
    const stored = session.log.end({ endAtMs: session.since() });
    void relay.track(stored).then(({ session: recorded }) => {
      if (recorded !== undefined && keepSessions) sessions.push(recorded);
    });
  };

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer | undefined,
    ended: () => void,
  ) => {
    const headers = flatHeaders(req.headers);
    const secrets = mergeSecrets(given, secretsOf(headers));
    const text = body?.toString('utf8') ?? '';
    const carried = headers[STREAMABLE_HTTP_HEADERS.sessionId];
    let session: LiveSession | undefined;
    if (req.method === 'POST' && isInitialize(text)) {
      const t0 = performance.now();
      session = {
        log: openSessionLog(
          {
            format: FIXTURE_FORMAT,
            version: FIXTURE_VERSION,
            kind: 'tool-session',
            recordedAt: new Date().toISOString(),
            source: 'wirecheck record tools --http',
            transport: 'http',
            server: redactUrl(upstream.href),
          },
          options,
        ),
        since: () => roundMs(performance.now() - t0),
        id: undefined,
        ended: false,
      };
      all.add(session);
    } else {
      session = carried === undefined ? anonymous : byId.get(carried);
      if (session === undefined)
        options.onUnmatched?.(`${req.method} ${redactTarget(req.url ?? '/', secrets)}`);
    }
    const sent: ToolMessage | undefined =
      session !== undefined && req.method === 'POST'
        ? { atMs: session.since(), direction: 'client->server', text: scrubSecrets(text, secrets) }
        : undefined;
    const sentIndex = sent === undefined ? undefined : session?.log.message(sent);
    const answered = (post: NonNullable<ToolMessage['post']>) => {
      if (sentIndex !== undefined) session?.log.post(sentIndex, post);
    };
    const record = (serverText: string) => {
      if (session === undefined || session.ended) return;
      session.log.message({
        atMs: session.since(),
        direction: 'server->client',
        text: maskSecrets(serverText, secrets),
      });
    };
    const out = connections.send(upstream, {
      method: req.method ?? 'GET',
      path: `${upstream.pathname}${upstream.search}`,
      headers: [
        ...upstreamHeaders(req.rawHeaders, new Set(['host', 'content-length'])),
        ...(body === undefined ? [] : ['content-length', String(body.length)]),
      ],
    });
    out.on('error', (e) => {
      const message = `wirecheck record: upstream ${upstream.origin} unreachable: ${(e as NodeJS.ErrnoException).code ?? e.message}`;
      answered({ status: 502, body: message });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: message }));
      ended();
    });
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    out.on('response', (up) => {
      const status = up.statusCode ?? 502;
      const issued = up.headers[STREAMABLE_HTTP_HEADERS.sessionId];
      if (session !== undefined && session.id === undefined && typeof issued === 'string') {
        session.id = issued;
        byId.set(issued, session);
      } else if (session !== undefined && session.id === undefined && status < 300) anonymous = session;
      res.writeHead(status, up.statusMessage, forwardable(up.rawHeaders));
      res.flushHeaders();
      const type = mediaTypeOf(up.headers['content-type']);
      const stream = type === STREAMABLE_HTTP_CONTENT_TYPES.eventStream;
      const decoder = stream
        ? createFrameDecoder({
            onFrame: (frame) => {
              if ((frame.event === undefined || frame.event === 'message') && frame.data !== '')
                record(frame.data);
            },
          })
        : undefined;
      const parts: Buffer[] = [];
      let kept = 0;
      // The upstream is paused while the client, the journal's disk or the decoder is behind.
      const pacer = createPacer(up);
      // The answer is read decoded (when the server compressed it anyway): a JSON answer up to
      // the body limit, a stream's messages against the journal's limit.
      const answer = recordedBody(
        {
          header: up.headers['content-encoding'],
          what: stream ? 'the POST answer stream' : 'the POST answer',
          ...(session !== undefined && { log: session.log }),
          ...(options.recordLimit !== undefined && { limit: options.recordLimit }),
        },
        {
          data: (decoded) => {
            decoder?.feed(decoded);
            if (!stream && kept <= bodyLimit) {
              parts.push(decoded);
              kept += decoded.length;
            }
            // Nothing more of it would be recorded: the rest is not inflated.
            const done = stream ? session?.log.full === true : kept > bodyLimit;
            if (done && answer.coding.kind === 'decoded')
              answer.stop(
                `wirecheck record: ${stream ? 'the POST answer stream passed the recording limit' : `the POST answer passed the body limit of ${bodyLimit} bytes`} once decoded, where decoding stopped`,
              );
          },
        },
      );
      up.on('data', (chunk: Buffer) => {
        if (!answer.push(chunk)) pacer.decoder(answer.drained);
        if (!res.write(chunk)) pacer.client(res);
        pacer.disk(session?.log);
      });
      up.on('error', () => {});
      up.on('end', () => {
        // The client's answer ends once it is recorded, as an answer in no coding: a client that
        // ends the session on it must not end it before its messages are in.
        void answer.end().then(() => {
          decoder?.end();
          // A JSON answer past the body limit is not recorded, compressed or not, as before.
          const unread = answer.why !== undefined && answer.unrecorded > 0 && kept <= bodyLimit;
          const text = Buffer.concat(parts).toString('utf8');
          if (unread) session?.log.unrecorded(answer.unrecorded, answer.why!);
          else if (type === STREAMABLE_HTTP_CONTENT_TYPES.json && status === 200 && kept <= bodyLimit) {
            // Bounded: a batch is split by writing its members again, which recurses; an answer
            // nested too deep for that is recorded whole, as the server wrote it.
            const parsed = parseJsonBounded(text, { maxLength: bodyLimit });
            if (parsed.ok && Array.isArray(parsed.value)) {
              for (const item of parsed.value) record(JSON.stringify(item));
            } else if (parsed.ok || parsed.reason === 'too-deep') record(text);
          }
          // Scrubbed before the cut: a secret across it is replaced whole, not cut and its start kept.
          answered({ status, body: unread ? answer.why! : scrubPrefix(text, secrets, POST_BODY_KEPT) });
          res.end();
          const over = req.method === 'DELETE' || (status === 404 && carried !== undefined);
          if (session !== undefined && over) finish(session);
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
        let body: Buffer | undefined;
        if (req.method === 'POST') {
          const tooLarge = JSON.stringify({
            error: `body exceeds ${bodyLimit} bytes (recording proxy limit)`,
          });
          body = await readBoundedBody(req, res, bodyLimit, tooLarge);
          if (body === undefined) return;
        } else req.resume();
        await new Promise<void>((ended) => forward(req, res, body, ended));
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
      // Sessions never ended by DELETE or 404 end with the recording.
      for (const session of [...all]) finish(session);
      await relay.settled();
      connections.destroy();
    },
  };
}
