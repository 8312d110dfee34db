import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { chunkLineSize, chunkOf, roundMs } from '../fixtures/chunks.js';
import { type ExchangeEnd, ExchangeFileWriter, type ExchangeHead } from '../fixtures/exchange-file.js';
import { CHUNK_LIST } from '../fixtures/format.js';
import {
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  type MessagesExchange,
  type RecordedChunk,
  type RecordedHeaders,
  type RecordedRequest,
  type ResponseEnd,
} from '../fixtures/schema.js';
import { parseJsonBounded } from '../protocol/json/bounded.js';
import { errorBody } from '../protocol/messages/index.js';
import {
  createReplyDecoder,
  type ReplyDecoder,
  recordedReplyHeaders,
  replyCodingOf,
} from './decoded-reply.js';
import { DROP_HOST, flatHeaders, forwardable, upstreamHeaders } from './headers.js';
import {
  type ChunkScrubber,
  createChunkScrubber,
  mergeSecrets,
  redactBody,
  redactHeaders,
  redactTarget,
  scrubSecrets,
  secretsOf,
  secretsOfTarget,
} from './redact.js';
import {
  createPacer,
  createUpstream,
  DISK_QUEUE_LIMIT,
  readBoundedBody,
  startRelayServer,
} from './relay-server.js';
import { createEventStreamScrubber, isEventStream } from './stream-deltas.js';

export interface RecordingProxyOptions {
  /** Base URL of the real service, e.g. `https://api.anthropic.com` (a path prefix is kept). */
  upstream: string;
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /**
   * Write each exchange there as `<time>-<counter>.json` (created if missing), streamed
   * while it happens: `<name>.json.partial` until it ends, then renamed.
   */
  outDir?: string;
  /**
   * Called once per exchange with the whole exchange, chunks included, after its file (if
   * any) is written. It makes the proxy keep each exchange's chunks in memory until the
   * exchange ends; `onRecorded` does not.
   */
  onExchange?: (exchange: MessagesExchange, file: string | undefined) => void;
  /** Called once per exchange with what it was (no chunks: nothing is kept), after its file is written. */
  onRecorded?: (summary: RecordedSummary, file: string | undefined) => void;
  /** Called when a file cannot be written. */
  onWriteError?: (error: Error, file: string) => void;
  /**
   * Largest request body forwarded, in bytes (default 64 MiB); larger gets 413 (at once when
   * its Content-Length says so). Bodies in flight at once are held to 4 x this: a request past
   * it gets 529 overloaded_error, as the real API answers when it is busy, before its body is read.
   */
  bodyLimit?: number;
  /**
   * Ms a request may take to arrive whole, headers and body; past it it is answered 408 and
   * its connection closed (default 60 s). Internal: tests set it short.
   */
  requestTimeoutMs?: number;
  /**
   * Keep every exchange in `exchanges` (default: only when there is no `outDir`). A long
   * recording session writing files would otherwise hold every stream in memory.
   */
  keepExchanges?: boolean;
  /**
   * Secret values to scrub wherever they appear, besides the credentials each request
   * presents (its credential headers and query parameters): e.g. the API key of the
   * environment, which an upstream may echo back.
   */
  secrets?: readonly (string | undefined)[];
  /**
   * Most bytes the recorded response body takes in the fixture file, as its chunk lines
   * (escaped text or base64), of one exchange (default 64 MiB, as the request body limit):
   * the body's own bytes, decoded ones included, can be fewer by up to six times. Past it
   * the client still gets every byte, but the recording stops there and is marked
   * `truncated`, its `error` saying how many bytes were not recorded.
   */
  recordLimit?: number;
}

/** One exchange as recorded, without its body. */
export interface RecordedSummary {
  readonly method: string;
  /** The request target, credentials redacted. */
  readonly path: string;
  /** 0 when no response came at all (nothing was written). */
  readonly status: number;
  readonly end: ResponseEnd;
  readonly chunks: number;
  readonly bytes: number;
  readonly error?: string;
  /** The recording stopped mid-exchange (the proxy was closed). */
  readonly truncated: boolean;
}

export interface RecordingProxy {
  /** `http://HOST:PORT`: give it to the client as the service's base URL. */
  readonly url: string;
  /** Every exchange recorded so far, in the order they ended (see `keepExchanges`). */
  readonly exchanges: MessagesExchange[];
  /** Resolves once every exchange begun so far has ended and been written. */
  settled(): Promise<void>;
  /**
   * Stop listening and cut open exchanges: one cut mid-stream is written with the chunks
   * so far and marked `truncated`; then wait for the files.
   */
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 64 * 1024 * 1024;
/**
 * A flooding upstream once made 305 MB of fixture in 4 s, which `fixtures validate` then
 * needed 3 GB to read: 64 MiB of chunk lines, the request body limit, is more than any real
 * reply and keeps the file under the readers' cap (FIXTURE_READ_LIMIT) whatever the bytes
 * (escaped, a NUL takes six).
 */
const DEFAULT_RECORD_LIMIT = 64 * 1024 * 1024;
/** Request bodies nested deeper are recorded as text (secrets scrubbed), not parsed. */
const RECORDED_BODY_DEPTH = 512;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function requestBodyOf(bytes: Buffer, secrets: readonly string[]): Partial<RecordedRequest> {
  if (bytes.length === 0) return {};
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    // Not text, yet a key pasted into it is still there in UTF-8: masked in place, as har.ts does.
    const scrubber = createChunkScrubber(secrets);
    return { bodyBase64: Buffer.concat([...scrubber.push(bytes), ...scrubber.end()]).toString('base64') };
  }
  const parsed = parseJsonBounded(text, {
    maxDepth: RECORDED_BODY_DEPTH,
    maxLength: Number.POSITIVE_INFINITY,
  });
  // Not JSON, or nested too deep to write out: kept as text, secrets still scrubbed.
  if (!parsed.ok) return { bodyText: scrubSecrets(text, secrets) };
  return { body: redactBody(parsed.value, secrets) };
}

function stampOf(iso: string): string {
  return iso.replace(/[:.]/g, '-');
}

/**
 * A recording proxy for the messages service: clients talk to it as to the service; it
 * forwards each request upstream unchanged but for `accept-encoding: identity` (a
 * compressed reply would pass the secret scrub unread; the recording keeps the client's
 * header; a reply compressed all the same is recorded decoded, decoded-reply.ts) and
 * streams the reply back unchanged (one write per upstream chunk, Nagle off
 * on both sockets, backpressure from the client paces the upstream), while recording the
 * exchange losslessly: the request with its secrets redacted, status, headers, every body
 * chunk as it arrived with its time. The fixture is streamed to disk as the exchange
 * happens (memory holds no body), so a kill mid-stream leaves the exchange so far. HTTP
 * errors, `error` events and cut streams are recorded like any other reply. An unreachable
 * upstream is answered 502 with the API's error body, and recorded too.
 *
 * Secrets never reach a file: credential headers, query parameters and JSON fields are
 * redacted by name, and the values the client presented (and `options.secrets`) are
 * scrubbed from everything else, the upstream's headers and body included, where a chunk
 * keeps its length (a same-length mask) so its boundaries and timing stay true: written as
 * they are or encoded (base64, escaped, percent-encoded), and, in an event stream, spread
 * over the deltas of a content block (stream-deltas.ts).
 */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const connections = createUpstream(options.upstream);
  const upstream = connections.url;
  const prefix = upstream.pathname.replace(/\/+$/, '');
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const recordLimit = options.recordLimit ?? DEFAULT_RECORD_LIMIT;
  const exchanges: MessagesExchange[] = [];
  const keepExchanges = options.keepExchanges ?? options.outDir === undefined;
  const given = mergeSecrets(options.secrets ?? []);
  let counter = 0;
  let closing = false;
  if (options.outDir !== undefined) await ExchangeFileWriter.prepare(options.outDir);

  // Fixture chunks (decoded text) are built only when someone sees the exchange as an object.
  const wantsChunks = keepExchanges || options.onExchange !== undefined;
  const fileFor = (recordedAt: string): string | undefined =>
    options.outDir === undefined
      ? undefined
      : join(options.outDir, `${stampOf(recordedAt)}-${String(++counter).padStart(4, '0')}.json`);

  const overloaded = (why: string) => ({
    status: 529,
    body: JSON.stringify(errorBody('overloaded_error', `wirecheck record: ${why}`)),
  });
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    void relay.track(
      (async () => {
        const tooLarge = JSON.stringify(
          errorBody('request_too_large', `Request exceeds ${bodyLimit} bytes (recording proxy limit).`),
        );
        const body = await readBoundedBody(req, res, bodyLimit, tooLarge, overloaded);
        if (body !== undefined) await new Promise<void>((ended) => forward(req, res, body, ended));
      })(),
    );
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, ended: () => void): void => {
    const requestHeaders = flatHeaders(req.headers);
    const target = req.url ?? '/';
    const secrets = mergeSecrets(given, secretsOf(requestHeaders), secretsOfTarget(target));
    const recordedRequest: RecordedRequest = {
      method: req.method ?? 'GET',
      path: redactTarget(target, secrets),
      headers: redactHeaders(requestHeaders, secrets),
      ...requestBodyOf(body, secrets),
    };
    const recordedAt = new Date().toISOString();
    const t0 = performance.now();
    const since = () => roundMs(performance.now() - t0);
    let status = 0;
    let responseHeaders: RecordedHeaders = {};
    let headersAtMs = 0;
    let clientGone = false;
    // Whether the client had left when the upstream's body broke off: a compressed body's
    // end is recorded after its decoder is done, by when the proxy's own cut of the client
    // has made it gone too.
    let clientLeftFirst: boolean | undefined;
    let finished = false;
    let writer: ExchangeFileWriter | undefined;
    // Chunks go through the scrubber (held back while their last bytes could begin a secret
    // that the next completes; in an event stream, while a later delta could) with their
    // arrival times, then to the file and, if wanted, to memory.
    let scrubber: ChunkScrubber = createChunkScrubber(secrets);
    const times: number[] = [];
    const memory: RecordedChunk[] = [];
    let chunkCount = 0;
    let byteCount = 0;
    // Bytes offered to the recording (decoded ones, for a compressed reply), and those the
    // client got after the recording stopped (past recordLimit, or a body it cannot decode).
    let offered = 0;
    let unrecorded = 0;
    // Bytes of chunk lines the fixture takes so far, the count recordLimit bounds.
    let fixtureBytes = 0;
    /** Why the recording of the body stopped, given what was then relayed unrecorded and how the upstream ended. */
    let stoppedBy: ((unrecorded: number, reported: ResponseEnd) => string) | undefined;
    const keep = (bytes: Buffer, atMs: number): void => {
      chunkCount++;
      byteCount += bytes.length;
      writer?.chunk(bytes, atMs);
      if (wantsChunks) memory.push(chunkOf(bytes, atMs));
    };
    const take = (released: Buffer[]): void => {
      for (const bytes of released) keep(bytes, times.shift() ?? since());
    };
    const head = (): ExchangeHead => ({
      format: FIXTURE_FORMAT,
      version: FIXTURE_VERSION,
      kind: 'messages-exchange',
      recordedAt,
      source: `proxy of ${upstream.origin}${prefix}`,
      request: recordedRequest,
      response: { status, headers: redactHeaders(responseHeaders, secrets), headersAtMs },
    });
    const open = (): void => {
      const file = fileFor(recordedAt);
      if (file === undefined) return;
      try {
        writer = new ExchangeFileWriter(file, head());
      } catch (e) {
        options.onWriteError?.(e as Error, file);
      }
    };

    const finish = (reported: ResponseEnd, error?: MessagesExchange['error']): void => {
      if (finished) return;
      finished = true;
      take(scrubber.end());
      // Stopped by close() mid-exchange, past recordLimit or at a body it could not decode:
      // the chunks so far, marked as a cut recording.
      const truncated = (closing && status !== 0 && reported !== 'complete') || stoppedBy !== undefined;
      const cut: MessagesExchange['error'] =
        stoppedBy !== undefined ? { stage: 'response', message: stoppedBy(unrecorded, reported) } : undefined;
      const end: ExchangeEnd = {
        end: truncated
          ? 'truncated'
          : (clientLeftFirst ?? clientGone) && reported === 'truncated'
            ? 'client-aborted'
            : reported,
        endAtMs: since(),
        ...((error ?? cut) && { error: error ?? cut }),
        ...(truncated && { truncated: true as const }),
      };
      void (async () => {
        let file: string | undefined;
        if (writer !== undefined) {
          try {
            await writer.finish(end);
            file = writer.file;
          } catch (e) {
            options.onWriteError?.(e as Error, writer.file);
          }
        }
        // No response at all (the client left first, or the proxy closed): nothing to replay.
        if (status !== 0) {
          const exchange: MessagesExchange = {
            ...head(),
            response: { ...head().response, chunks: memory, end: end.end, endAtMs: end.endAtMs },
            ...(end.error && { error: end.error }),
            ...(end.truncated && { truncated: end.truncated }),
          };
          if (keepExchanges) exchanges.push(exchange);
          options.onExchange?.(exchange, file);
        }
        options.onRecorded?.(
          {
            method: recordedRequest.method,
            path: recordedRequest.path,
            status,
            end: end.end,
            chunks: chunkCount,
            bytes: byteCount,
            truncated: end.truncated === true,
            ...(end.error && { error: end.error.message }),
          },
          file,
        );
      })().finally(ended);
    };

    const out = connections.send(upstream, {
      method: req.method ?? 'GET',
      path: prefix + target,
      headers: upstreamHeaders(req.rawHeaders, DROP_HOST),
    });
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
      open();
      if (!res.headersSent) res.writeHead(502, responseHeaders).end(bytes);
      times.push(since());
      take(scrubber.push(bytes));
      finish('complete', { stage: connected ? 'request' : 'connect', message });
    });

    out.on('response', (up) => {
      status = up.statusCode ?? 0;
      headersAtMs = since();
      const header = up.headers['content-encoding'];
      const coding = replyCodingOf(header);
      // A compressed body is recorded decoded, so the fixture no longer carries its coding or length.
      responseHeaders = recordedReplyHeaders(flatHeaders(up.headers), coding);
      if (isEventStream(up.headers['content-type'])) scrubber = createEventStreamScrubber(secrets);
      // The file opens now: from here on a kill leaves the exchange so far.
      open();
      res.writeHead(status, up.statusMessage, forwardable(up.rawHeaders));
      res.flushHeaders();
      // The upstream is paused while the client, the disk or the decoder is behind, resumed when none is.
      const pacer = createPacer(up);
      /** Records bytes as they are to be replayed (decoded), within recordLimit; false once past it. */
      const record = (bytes: Buffer): boolean => {
        const atMs = performance.now() - t0;
        // What the chunk takes in the file, not its bytes: 300 MiB of NULs, gzipped to 300 KB
        // and counted decoded, made a 403 MB fixture (each NUL `\u0000`) its readers refused.
        // The scrubber keeps chunks as they come (a mask is no longer than what it covers), so
        // this is what is written, give or take a chunk split where a secret could begin.
        const size = CHUNK_LIST.between.length + chunkLineSize(bytes, atMs);
        if (fixtureBytes + size > recordLimit) return false;
        fixtureBytes += size;
        offered += bytes.length;
        times.push(atMs);
        take(scrubber.push(bytes));
        return true;
      };
      let decoder: ReplyDecoder | undefined;
      if (coding.kind === 'undecoded')
        stoppedBy = (n) =>
          `wirecheck record: the response came with Content-Encoding: ${coding.header}, and ${coding.why}: its body (${n} bytes) was relayed to the client but not recorded`;
      else if (coding.kind === 'decoded') {
        const encoded = `the response body (Content-Encoding: ${coding.header})`;
        const rest = (n: number, reported: ResponseEnd) =>
          `${n} encoded bytes more were relayed to the client but not recorded (the upstream ended it ${reported})`;
        decoder = createReplyDecoder(coding.codings, {
          data(decoded) {
            // A whole piece past the limit is left out, and nothing more is inflated: a small body
            // that decodes to gigabytes (a decompression bomb) costs the limit, never more.
            if (!record(decoded)) {
              stoppedBy = (n, reported) =>
                `wirecheck record: ${encoded} passed the recording limit of ${recordLimit} bytes once decoded, where decoding stopped: ${rest(n, reported)}`;
              decoder!.stop();
              return;
            }
            if (writer !== undefined && writer.queuedBytes > DISK_QUEUE_LIMIT) {
              decoder!.pause();
              void writer.drained().then(() => decoder!.resume());
            }
          },
          failed(error) {
            stoppedBy = (n, reported) =>
              `wirecheck record: ${encoded} does not decode (${error.message}): the recording stops at the ${offered} bytes decoded before it; ${rest(n, reported)}`;
          },
        });
      }
      up.on('data', (chunk: Buffer) => {
        // The client gets the bytes first; recording them costs it nothing.
        const clientReady = res.write(chunk);
        if (stoppedBy !== undefined) unrecorded += chunk.length;
        else if (decoder !== undefined) {
          if (!decoder.write(chunk)) pacer.decoder(decoder.drained);
        } else if (!record(chunk)) {
          // A whole chunk past the limit is left out: the recording ends on a chunk as it arrived.
          stoppedBy = (n, reported) =>
            `wirecheck record: the response body passed the recording limit of ${recordLimit} bytes: ${n} bytes more were relayed to the client but not recorded (the upstream ended it ${reported})`;
          unrecorded += chunk.length;
        }
        if (!clientReady) pacer.client(res);
        pacer.disk(writer);
      });
      up.on('end', () => {
        res.end();
        decoder?.end();
        // Close the fixture after the last bytes are on their way to the client (and decoded).
        void (decoder?.done ?? Promise.resolve()).then(() => setImmediate(() => finish('complete')));
      });
      up.on('error', () => {});
      up.on('close', () => {
        if (up.complete) return;
        clientLeftFirst = clientGone;
        // The upstream cut the body: cut the client too, so it sees what it would have seen.
        res.destroy();
        if (decoder === undefined) return finish('truncated');
        // What came before the cut is decoded and recorded, however late zlib gives it.
        decoder.cut();
        void decoder.done.then(() => finish('truncated'));
      });
    });
    out.end(body);
  };

  const relay = await startRelayServer(handle, options);
  return {
    url: relay.origin,
    exchanges,
    settled: () => relay.settled(),
    async close() {
      closing = true;
      await relay.stop();
      await relay.settled();
      connections.destroy();
    },
  };
}
