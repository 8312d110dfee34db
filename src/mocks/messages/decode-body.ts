import type { IncomingHttpHeaders } from 'node:http';
import { type Readable, Transform } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import {
  codingsOf,
  DECODED_CODINGS,
  decoderChain,
  MAX_CODINGS,
  undecodedCoding,
} from '../../transports/content-coding.js';
import type { MockState } from './state.js';

/*
 * A request body sent with Content-Encoding. Whether the real API accepts one is not verified
 * (one third-party report says gzip works); a client that compresses its body must not be
 * failed for it, so the mock decodes the common codings and refuses the rest with 415, which
 * the suites take as nothing to judge. The body limit counts the decoded bytes as they come
 * out of the decoder: a small body that inflates past it (a decompression bomb) is cut there
 * with the mock's 413, never inflated whole. The decoded bytes are held like any body's, so
 * they take from the bodies' budget (BodyBudget) as they come and are given back when the
 * answer ends: a compressed body would otherwise hold 1000 times what it reserved.
 */

/** Whether a request carries a body (HTTP/1.1: a Content-Length above 0, or Transfer-Encoding). */
function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

function refusal(message: string, statusCode: number): Error {
  return Object.assign(new Error(message), { statusCode });
}

/**
 * The mock's preParsing hook: the body as its Content-Encoding says, or the request refused
 * (415 for a coding it does not decode, 400 for data that does not decode, 413 for a body that
 * decodes past the body limit, all recorded in the journal entry's `bodyUndecoded`; 529 past
 * the budget).
 */
export function decodeBodyHook(state: MockState): preParsingHookHandler {
  return (request, reply, payload, done) => {
    const header = request.headers['content-encoding'];
    if (header === undefined || !hasBody(request.headers)) return done(null, payload);
    const entry = state.entryOf(request);
    const unknown = undecodedCoding(header);
    if (unknown !== undefined) {
      const why = `Content-Encoding: ${header}: the mock does not decode "${unknown}" (it decodes ${DECODED_CODINGS}); whether the real API does is not verified`;
      if (entry) entry.bodyUndecoded = why;
      return done(refusal(why, 415));
    }
    const codings = codingsOf(header);
    if (codings.length === 0) return done(null, payload);
    if (codings.length > MAX_CODINGS) {
      const why = `Content-Encoding: ${codings.length} codings stacked: the mock decodes at most ${MAX_CODINGS} (one is what clients send); whether the real API decodes more is not verified`;
      if (entry) entry.bodyUndecoded = why;
      return done(refusal(why, 415));
    }
    const decoded = decodedBody(payload, codings, {
      limit: state.bodyLimit,
      take: (n, own) =>
        state.bodies.takeMore(n, own)
          ? undefined
          : state.bodies.refusal(`the next ${n} decoded bytes of this ${header} body (${own} held so far)`),
      give: (n) => state.bodies.give(n),
      undecodable: (error) => {
        const why = `Content-Encoding: ${header}: the body does not decode as ${codings.join(' then ')} (${error.message})`;
        if (entry) entry.bodyUndecoded = why;
        return refusal(why, 400);
      },
      // Journaled as undecoded too: whether the real API takes a coded body at all, and whether
      // its size limit counts the bytes sent or those decoded, is not verified, so this 413 is
      // the mock's own and says nothing about the real API's limit.
      pastLimit: (encoded) => {
        const why = `Content-Encoding: ${header}: the decoded body passes the mock's limit of ${state.bodyLimit} bytes (after ${encoded} bytes as sent); whether the real API takes a ${header} body, and whether its limit counts the bytes sent or decoded, is not verified`;
        if (entry) entry.bodyUndecoded = why;
        return refusal(why, 413);
      },
    });
    // Given back once the answer ends: 'finish' when it was written, 'close' when it was cut.
    reply.raw.once('finish', decoded.release).once('close', decoded.release);
    done(null, decoded.stream);
  };
}

interface DecodeOptions {
  /** Decoded bytes allowed; one more is refused 413. */
  limit: number;
  /** Take `n` bytes from the budget for a body holding `own`; the refusal's sentence when they do not fit. */
  take(n: number, own: number): string | undefined;
  give(n: number): void;
  /** The error for data that does not decode. */
  undecodable(error: Error): Error;
  /** The error (a 413) for a body that decodes past `limit`, after `encoded` bytes of it arrived. */
  pastLimit(encoded: number): Error;
}

/**
 * `payload` decoded by `codings` (applied in that order, so undone from the last), read as the
 * body parser reads a stream: `receivedEncodedLength` is the bytes that arrived, which fastify
 * holds to the Content-Length. Decoding stops at the first error; what is left of `payload`
 * is drained unread.
 */
export function decodedBody(
  payload: Readable,
  codings: readonly string[],
  options: DecodeOptions,
): { stream: Readable & { receivedEncodedLength: number }; release: () => void } {
  let encoded = 0;
  let decodedBytes = 0;
  let held = 0;
  let released = false;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      encoded += chunk.length;
      out.receivedEncodedLength = encoded;
      next(null, chunk);
    },
  });
  const decoders = decoderChain(codings);
  const out = Object.assign(
    new Transform({
      transform(chunk: Buffer, _encoding, next) {
        decodedBytes += chunk.length;
        if (decodedBytes > options.limit) {
          stop();
          return next(options.pastLimit(encoded));
        }
        if (!released) {
          const why = options.take(chunk.length, held + encoded);
          if (why !== undefined) {
            stop();
            return next(refusal(why, 529));
          }
          held += chunk.length;
        }
        next(null, chunk);
      },
    }),
    { receivedEncodedLength: 0 },
  );
  const chain: Transform[] = [counter, ...decoders];
  let stopped = false;
  /** Stop reading and decoding: nothing more is inflated, and the rest of the body is drained unread. */
  function stop(): void {
    if (stopped) return;
    stopped = true;
    payload.unpipe(counter);
    for (const s of chain) s.destroy();
    payload.resume();
  }
  const fail = (error: Error) => {
    if (stopped) return;
    stop();
    out.destroy(error);
  };
  payload.once('error', fail);
  counter.once('error', fail);
  for (const decoder of decoders) decoder.once('error', (error) => fail(options.undecodable(error)));
  // The decoders are piped into each other already (decoderChain).
  counter.pipe(chain[1] ?? out);
  if (decoders.length > 0) decoders.at(-1)!.pipe(out);
  payload.pipe(counter);
  return {
    stream: out,
    release: () => {
      if (released) return;
      released = true;
      options.give(held);
      held = 0;
    },
  };
}
