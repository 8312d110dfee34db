import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chunkOf, roundMs } from '../fixtures/chunks.js';
import { type RawChunks, writeExchangeFile } from '../fixtures/format.js';
import {
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  type MessagesExchange,
  type RecordedChunk,
  type RecordedHeaders,
  type RecordedRequest,
  type ResponseEnd,
} from '../fixtures/schema.js';
import { errorBody } from '../protocol/messages/index.js';
import { DROP_HOST, flatHeaders, forwardable } from './headers.js';
import { redactBody, redactHeaders, scrubSecrets, secretsOf } from './redact.js';

export interface RecordingProxyOptions {
  /** Base URL of the real service, e.g. `https://api.anthropic.com` (a path prefix is kept). */
  upstream: string;
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Write each exchange there as `<time>-<counter>.json` (created if missing). */
  outDir?: string;
  /** Called once per exchange, after its file (if any) is written. */
  onExchange?: (exchange: MessagesExchange, file: string | undefined) => void;
  /** Called when a file cannot be written (the exchange is still kept in memory). */
  onWriteError?: (error: Error, file: string) => void;
  /** Largest request body forwarded, in bytes (default 64 MiB); larger gets 413. */
  bodyLimit?: number;
  /**
   * Keep every exchange in `exchanges` (default: only when there is no `outDir`). A long
   * recording session writing files would otherwise hold every stream in memory.
   */
  keepExchanges?: boolean;
}

export interface RecordingProxy {
  /** `http://HOST:PORT`: give it to the client as the service's base URL. */
  readonly url: string;
  /** Every exchange recorded so far, in the order they ended (see `keepExchanges`). */
  readonly exchanges: MessagesExchange[];
  /** Resolves once every exchange begun so far has ended and been written. */
  settled(): Promise<void>;
  /** Stop listening, cut open exchanges (they are recorded as client-aborted) and wait for the files. */
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 64 * 1024 * 1024;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function requestBodyOf(bytes: Buffer, secrets: readonly string[]): Partial<RecordedRequest> {
  if (bytes.length === 0) return {};
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { bodyBase64: bytes.toString('base64') };
  }
  try {
    return { body: redactBody(JSON.parse(text), secrets) };
  } catch {
    // Not JSON, or nested too deep to walk: kept as text, secrets still scrubbed.
    return { bodyText: scrubSecrets(text, secrets) };
  }
}

function stampOf(iso: string): string {
  return iso.replace(/[:.]/g, '-');
}

/**
 * A recording proxy for the messages service: clients talk to it as to the service; it
 * forwards each request upstream unchanged and streams the reply back unchanged (one
 * write per upstream chunk, Nagle off on both sockets, backpressure from the client
 * paces the upstream), while recording the exchange losslessly: the request with its
 * secrets redacted, status, headers, every body chunk as it arrived with its time.
 * HTTP errors, `error` events and cut streams are recorded like any other reply. An
 * unreachable upstream is answered 502 with the API's error body, and recorded too.
 */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new TypeError(`upstream must be an http: or https: URL, got ${options.upstream}`);
  }
  const prefix = upstream.pathname.replace(/\/+$/, '');
  const secure = upstream.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const exchanges: MessagesExchange[] = [];
  const keepExchanges = options.keepExchanges ?? options.outDir === undefined;
  const pending = new Set<Promise<void>>();
  let counter = 0;

  // Fixture chunks (decoded text) are built only when someone sees the exchange as an
  // object; the file is formatted from the raw bytes (half the CPU of formatting decoded text).
  const wantsChunks = keepExchanges || options.onExchange !== undefined;

  const store = (exchange: MessagesExchange, raw: RawChunks): void => {
    if (keepExchanges) exchanges.push(exchange);
    const n = ++counter;
    const file =
      options.outDir === undefined
        ? undefined
        : join(
            options.outDir,
            `${stampOf(exchange.recordedAt ?? new Date().toISOString())}-${String(n).padStart(4, '0')}.json`,
          );
    const done = (async () => {
      if (file !== undefined) {
        try {
          await writeExchangeFile(file, exchange, raw);
        } catch (e) {
          options.onWriteError?.(e as Error, file);
          return;
        }
      }
      options.onExchange?.(exchange, file);
    })();
    pending.add(done);
    void done.finally(() => pending.delete(done));
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const inFlight = new Promise<void>((resolveExchange) => {
      const parts: Buffer[] = [];
      let size = 0;
      req.on('data', (b: Buffer) => {
        size += b.length;
        if (size <= bodyLimit) parts.push(b);
      });
      req.on('error', () => resolveExchange());
      req.on('end', () => {
        if (size > bodyLimit) {
          const body = JSON.stringify(
            errorBody('request_too_large', `Request exceeds ${bodyLimit} bytes (recording proxy limit).`),
          );
          res.writeHead(413, { 'content-type': 'application/json' }).end(body);
          resolveExchange();
          return;
        }
        forward(req, res, Buffer.concat(parts), resolveExchange);
      });
    });
    pending.add(inFlight);
    void inFlight.finally(() => pending.delete(inFlight));
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, ended: () => void): void => {
    const requestHeaders = flatHeaders(req.headers);
    const secrets = secretsOf(requestHeaders);
    const recordedRequest: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: redactHeaders(requestHeaders, secrets),
      ...requestBodyOf(body, secrets),
    };
    const recordedAt = new Date().toISOString();
    const t0 = performance.now();
    const since = () => roundMs(performance.now() - t0);
    // The hot path keeps each upstream chunk as it came (no copy, no decoding) with its
    // time; the fixture's chunks are built once the exchange has ended.
    const rawChunks: Buffer[] = [];
    const rawTimes: number[] = [];
    let status = 0;
    let responseHeaders: RecordedHeaders = {};
    let headersAtMs = 0;
    let clientGone = false;
    let finished = false;
    const finish = (end: ResponseEnd, error?: MessagesExchange['error']): void => {
      if (finished) return;
      finished = true;
      const chunks: RecordedChunk[] = [];
      if (wantsChunks)
        for (let i = 0; i < rawChunks.length; i++)
          chunks.push(chunkOf(rawChunks[i] as Buffer, rawTimes[i] as number));
      const exchange: MessagesExchange = {
        format: FIXTURE_FORMAT,
        version: FIXTURE_VERSION,
        kind: 'messages-exchange',
        recordedAt,
        source: `proxy of ${upstream.origin}${prefix}`,
        request: recordedRequest,
        response: {
          status,
          headers: redactHeaders(responseHeaders, secrets),
          headersAtMs,
          end: clientGone && end === 'truncated' ? 'client-aborted' : end,
          endAtMs: since(),
          chunks,
        },
        ...(error && { error }),
      };
      store(exchange, { bytes: rawChunks, atMs: rawTimes });
      ended();
    };

    const out = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: prefix + (req.url ?? '/'),
      // With headers given as raw pairs Node adds no Host of its own.
      headers: ['host', upstream.host, ...forwardable(req.rawHeaders, DROP_HOST)],
      agent,
    });
    out.on('socket', (socket) => socket.setNoDelay(true));
    let connected = false;
    out.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });

    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      out.destroy();
      if (status === 0) finish('client-aborted');
    });

    out.on('error', (e) => {
      if (status !== 0 || clientGone) return; // after the headers, the response's close records the cut
      const message = `upstream ${upstream.origin} ${connected ? 'failed' : 'unreachable'}: ${(e as NodeJS.ErrnoException).code ?? e.message}`;
      const bytes = Buffer.from(JSON.stringify(errorBody('api_error', `wirecheck record: ${message}`)));
      status = 502;
      responseHeaders = { 'content-type': 'application/json', 'content-length': String(bytes.length) };
      headersAtMs = since();
      rawChunks.push(bytes);
      rawTimes.push(since());
      if (!res.headersSent) res.writeHead(502, responseHeaders).end(bytes);
      finish('complete', { stage: connected ? 'request' : 'connect', message });
    });

    out.on('response', (up) => {
      status = up.statusCode ?? 0;
      headersAtMs = since();
      responseHeaders = flatHeaders(up.headers);
      res.writeHead(status, up.statusMessage, forwardable(up.rawHeaders));
      res.flushHeaders();
      up.on('data', (chunk: Buffer) => {
        rawChunks.push(chunk);
        rawTimes.push(performance.now() - t0);
        if (!res.write(chunk)) {
          up.pause();
          res.once('drain', () => up.resume());
        }
      });
      up.on('end', () => {
        res.end();
        // Build and write the fixture after the last bytes are on their way to the client.
        setImmediate(() => finish('complete'));
      });
      up.on('error', () => {});
      up.on('close', () => {
        if (up.complete) return;
        // The upstream cut the body: cut the client too, so it sees what it would have seen.
        res.destroy();
        finish('truncated');
      });
    });
    out.end(body);
  };

  const server: Server = createServer(handle);
  server.on('connection', (socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const settled = async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  };
  return {
    url: `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${address.port}`,
    exchanges,
    settled,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await settled();
      agent.destroy();
    },
  };
}
