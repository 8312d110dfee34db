import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { accumulate, type Message } from '../../protocol/messages/index.js';
import {
  arbStreamCase,
  chunkBytes,
  interestingCuts,
  serializeStreamCase,
} from '../../suites/arbitraries/messages.js';
import { arbByteMutation, type ByteMutation, HUGE_LINE_MAX, mutateBytes } from '../mutations/bytes.js';
import { type DecodedStream, decodeWithCallbacks, referenceDecode } from '../oracles/sse.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/** One decoder input: the bytes, where they are cut into chunks, and where they came from. */
export interface DecoderCase {
  origin: 'random bytes' | 'sse tokens' | 'stream case';
  mutations: ByteMutation[];
  bytes: Uint8Array;
  cuts: number[];
  /** For an unmutated stream case: the events its frames must parse to, and their message. */
  valid?: { events: unknown[]; message: Message };
}

const TOKENS = [
  'data: x',
  'data:',
  'event: e',
  'id: 1',
  'id',
  ': c',
  'retry: 5',
  'retry: x',
  'bad',
  ' ',
  '\r',
  '\n',
  '\r\n',
  '\uFEFF',
];
const encoder = new TextEncoder();

const arbTokenSoup = fc
  .array(fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 6 })), { maxLength: 24 })
  .map((parts) => encoder.encode(parts.join('')));

function printable(c: DecoderCase): DecoderCase {
  return Object.assign(c, {
    [fc.toStringMethod]: () => {
      const text = JSON.stringify(Buffer.from(c.bytes).toString('latin1'));
      const shown = text.length > 600 ? `${text.slice(0, 600)}..." (${c.bytes.length} bytes)` : text;
      return `{origin: ${c.origin}, mutations: ${fc.stringify(c.mutations)}, bytes (latin1): ${shown}, cuts: ${fc.stringify(c.cuts)}}`;
    },
  });
}

function arbCuts(bytes: Uint8Array): fc.Arbitrary<number[]> {
  if (bytes.length < 2) return fc.constant([]);
  const interesting = interestingCuts(bytes);
  return fc.oneof(
    fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 30 }),
    fc.subarray(interesting, { maxLength: Math.min(80, interesting.length) }),
  );
}

const arbValidStream = arbStreamCase({ maxBlocks: 3, text: { maxUnits: 20, maxLongUnits: 200 } }).map((c) => {
  const { bytes, events } = serializeStreamCase(c);
  return { bytes, events, message: c.message };
});

export const arbDecoderCase: fc.Arbitrary<DecoderCase> = fc
  .oneof(
    {
      arbitrary: fc
        .uint8Array({ maxLength: 300 })
        .map((bytes) => ({ origin: 'random bytes' as const, bytes })),
      weight: 1,
    },
    { arbitrary: arbTokenSoup.map((bytes) => ({ origin: 'sse tokens' as const, bytes })), weight: 2 },
    {
      arbitrary: fc
        .tuple(arbValidStream, fc.array(arbByteMutation, { maxLength: 4 }))
        .map(([valid, mutations]) => ({
          origin: 'stream case' as const,
          bytes: mutations.reduce(mutateBytes, valid.bytes),
          mutations,
          ...(mutations.length === 0 ? { valid: { events: valid.events, message: valid.message } } : {}),
        })),
      weight: 5,
    },
  )
  .chain((c) => arbCuts(c.bytes).map((cuts) => printable({ mutations: [], ...c, cuts })));

/** Where two decodings first differ, for the failure message. */
export function firstDifference(actual: DecodedStream, expected: DecodedStream): string {
  for (const key of ['frames', 'comments', 'invalidLines', 'unterminated', 'limitHits'] as const) {
    if (!isDeepStrictEqual(actual[key], expected[key])) {
      return `${key}: expected ${fc.stringify(expected[key]).slice(0, 500)}, got ${fc.stringify(actual[key]).slice(0, 500)}`;
    }
  }
  return 'no difference';
}

/**
 * The decoder elides an unterminated frame beyond 64 KiB; inserted huge lines stay below
 * that unless several pile up, and then only a non-empty result is required.
 */
function sameUnterminated(actual: string, expected: string): boolean {
  return actual === expected || (expected.length > HUGE_LINE_MAX && actual.length > 0);
}

export const sseDecoderSurface: FuzzSurface<DecoderCase> = {
  name: 'sse-decoder',
  description:
    'SSE frame decoder on random, token-soup and mutated stream bytes cut into random chunks: never throws, reports exactly what a whole-stream reference parser does, decodes valid streams to their events',
  open: () => ({
    arbitrary: arbDecoderCase,
    check(c) {
      const chunks = chunkBytes(c.bytes, c.cuts);
      let actual: DecodedStream;
      try {
        actual = decodeWithCallbacks(chunks);
      } catch (e) {
        throw new FuzzViolation(
          `the decoder threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
        );
      }
      const expected = referenceDecode(c.bytes);
      const same =
        isDeepStrictEqual(actual.frames, expected.frames) &&
        isDeepStrictEqual(actual.comments, expected.comments) &&
        isDeepStrictEqual(actual.invalidLines, expected.invalidLines) &&
        isDeepStrictEqual(actual.limitHits, expected.limitHits) &&
        sameUnterminated(actual.unterminated, expected.unterminated);
      if (!same) {
        throw new FuzzViolation(
          `chunked decoding differs from the reference parser: ${firstDifference(actual, expected)}`,
        );
      }
      if (c.valid) {
        const events = actual.frames.map((f) => JSON.parse(f.data) as unknown);
        if (!isDeepStrictEqual(events, c.valid.events)) {
          throw new FuzzViolation('a valid stream case did not decode to its events');
        }
        if (!isDeepStrictEqual(accumulate(events), c.valid.message)) {
          throw new FuzzViolation('a valid stream case did not reduce to its message');
        }
      }
    },
  }),
};
