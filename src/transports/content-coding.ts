import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

// HTTP content codings (Content-Encoding) undone as a stream, shared by the mock messages
// service (request bodies, src/mocks/messages/decode-body.ts) and the messages recording
// proxy (the upstream's replies, src/recording/decoded-reply.ts): both count the decoded
// bytes as they come out, so a body that inflates far past its limit is cut, never held.

/** The codings decoded, by their RFC 9110 names (x-gzip is gzip's old alias); deflate is the zlib format. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** What a refusal lists as decoded. */
export const DECODED_CODINGS = 'gzip, deflate, br and identity';

/**
 * Codings one body may stack. HTTP lets a sender apply several, but one is what peers send;
 * each costs a decoder, and `gzip, gzip, ...` to the header's 16 KiB (some 3,000 layers of a
 * 93 KB body) held one request 229 s, the body limit no help since the body was small.
 */
export const MAX_CODINGS = 4;

/** The codings of a Content-Encoding value in the order they were applied, identity left out. */
export function codingsOf(header: string): string[] {
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** The first coding of a Content-Encoding value that is not decoded here, or undefined. */
export function undecodedCoding(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return codingsOf(header).find((c) => !Object.hasOwn(DECODERS, c));
}

/**
 * One decoder per coding of `codings` (applied in that order, so undone from the last),
 * each piped into the next: write the encoded bytes to the first, read the decoded ones from
 * the last. Every coding must be one `undecodedCoding` accepts. Errors are not forwarded
 * along pipes: the caller listens on each decoder.
 */
export function decoderChain(codings: readonly string[]): Transform[] {
  const decoders = [...codings].reverse().map((c) => {
    const make = DECODERS[c];
    if (make === undefined) throw new TypeError(`decoderChain: no decoder for coding "${c}"`);
    return make();
  });
  for (let i = 0; i + 1 < decoders.length; i++) decoders[i]!.pipe(decoders[i + 1]!);
  return decoders;
}
