import type { Transform } from 'node:stream';
import {
  codingsOf,
  DECODED_CODINGS,
  decoderChain,
  MAX_CODINGS,
  undecodedCoding,
} from '../transports/content-coding.js';

/*
 * An upstream reply with a Content-Encoding is recorded decoded. The proxy asks for
 * `identity`, but an upstream may compress anyway: recorded as it came, the body would be
 * bytes the by-value scrub cannot read (a key echoed in it written to the fixture) and that
 * a replay, `fixtures validate` and `fixtures convert` would take for the text it is not.
 * The client still gets the upstream's bytes unchanged: they answer its own request.
 */

/** How a reply's body is recorded, from its Content-Encoding. */
export type ReplyCoding =
  | { readonly kind: 'identity' }
  | { readonly kind: 'decoded'; readonly header: string; readonly codings: readonly string[] }
  /** A coding not decoded here, or too many stacked: the body is relayed, not recorded. */
  | { readonly kind: 'undecoded'; readonly header: string; readonly why: string };

export function replyCodingOf(header: string | undefined): ReplyCoding {
  if (header === undefined) return { kind: 'identity' };
  const codings = codingsOf(header);
  if (codings.length === 0) return { kind: 'identity' };
  const unknown = undecodedCoding(header);
  if (unknown !== undefined)
    return {
      kind: 'undecoded',
      header,
      why: `the recorder does not decode "${unknown}" (it decodes ${DECODED_CODINGS})`,
    };
  if (codings.length > MAX_CODINGS)
    return {
      kind: 'undecoded',
      header,
      why: `${codings.length} codings are stacked; the recorder decodes at most ${MAX_CODINGS}`,
    };
  return { kind: 'decoded', header, codings };
}

/**
 * The reply headers a fixture keeps: with a Content-Encoding, neither it nor the
 * Content-Length describes the recorded body (decoded, or not kept), so both are left out
 * and a replay sends the body as it stands, as HAR import does.
 */
export function recordedReplyHeaders(
  headers: Readonly<Record<string, string>>,
  coding: ReplyCoding,
): Record<string, string> {
  if (coding.kind === 'identity') return { ...headers };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'content-encoding' || name === 'content-length') continue;
    out[name] = value;
  }
  return out;
}

export interface ReplyDecoderEvents {
  /** Decoded bytes, as they come out of the last decoder. */
  data(decoded: Buffer): void;
  /** The body does not decode: nothing more is decoded. Not called once `stop` was. */
  failed(error: Error): void;
}

/**
 * The decoding of one reply body, pushed chunk by chunk as it arrives. Nothing is held but
 * what zlib holds: the output is given as it comes, and `pause` holds it (then the input
 * fills, `write` says so, and the caller pauses its source) while the caller is behind.
 */
export interface ReplyDecoder {
  /** Encoded bytes in; false when the decoders' input is full (wait for `drained`). */
  write(chunk: Buffer): boolean;
  /** Settles when the input has room again, or decoding is over. */
  drained(): Promise<void>;
  /** No more input: `done` settles once the last decoded bytes were given. */
  end(): void;
  /**
   * The input was cut: what came is decoded and given, then `done` settles; the failure such a
   * body meets at its end (zlib's "unexpected end of file") is the cut, not reported.
   */
  cut(): void;
  /** Stop decoding now: no more output, `done` settles. */
  stop(): void;
  pause(): void;
  resume(): void;
  /** Settles when decoding is over: the end of the body, a failure, or `stop`. */
  readonly done: Promise<void>;
}

export function createReplyDecoder(codings: readonly string[], on: ReplyDecoderEvents): ReplyDecoder {
  const chain: Transform[] = decoderChain(codings);
  const first = chain[0]!;
  const last = chain.at(-1)!;
  let over = false;
  let cutShort = false;
  let fed = 0;
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const stop = (): void => {
    if (over) return;
    over = true;
    for (const decoder of chain) decoder.destroy();
    settle();
  };
  const end = (): void => {
    if (over) return;
    // An empty body with a Content-Encoding (a HEAD, a 204) is no gzip stream: zlib would call it cut.
    if (fed === 0) stop();
    else first.end();
  };
  last.on('data', (decoded: Buffer) => {
    if (!over) on.data(decoded);
  });
  last.once('end', stop);
  // Every error, not once: a decoder destroyed mid-write may still report one.
  for (const decoder of chain)
    decoder.on('error', (error) => {
      if (over) return;
      stop();
      if (!cutShort) on.failed(error);
    });
  return {
    write(chunk) {
      if (over) return true;
      fed += chunk.length;
      return first.write(chunk);
    },
    drained() {
      if (over || !first.writableNeedDrain) return Promise.resolve();
      return Promise.race([new Promise<void>((resolve) => first.once('drain', () => resolve())), done]);
    },
    end,
    cut() {
      cutShort = true;
      end();
    },
    stop,
    pause: () => last.pause(),
    resume: () => {
      if (!over) last.resume();
    },
    done,
  };
}
