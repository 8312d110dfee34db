import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { SseLimits } from '../../protocol/sse/index.js';
import { chunkBytes } from '../../suites/arbitraries/messages.js';
import { type DecodedStream, decodeWithCallbacks, referenceDecode } from '../oracles/sse.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';
import { arbDecoderCase, type DecoderCase, firstDifference } from './sse-decoder.js';

/** Limits small enough that the decoder's inputs (up to a few KiB) pass them often. */
const arbLimits: fc.Arbitrary<SseLimits> = fc
  .record({
    maxLineLength: fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined }),
    maxFrameLength: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
  })
  .map((l) => ({
    ...(l.maxLineLength === undefined ? {} : { maxLineLength: l.maxLineLength }),
    ...(l.maxFrameLength === undefined ? {} : { maxFrameLength: l.maxFrameLength }),
  }));

export interface LimitsCase {
  readonly decoder: DecoderCase;
  readonly limits: SseLimits;
}

export const sseLimitsSurface: FuzzSurface<LimitsCase> = {
  name: 'sse-limits',
  description:
    'SSE frame decoder with small line and frame limits on random, token-soup and mutated stream bytes cut into random chunks: never throws, reports every limit hit where the whole-stream reference does, drops exactly the frames it drops, decodes the rest alike',
  open: () => ({
    arbitrary: fc.record({ decoder: arbDecoderCase, limits: arbLimits }),
    check({ decoder: c, limits }) {
      let actual: DecodedStream;
      try {
        actual = decodeWithCallbacks(chunkBytes(c.bytes, c.cuts), limits);
      } catch (e) {
        throw new FuzzViolation(
          `the decoder threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
        );
      }
      const expected = referenceDecode(c.bytes, limits);
      if (!isDeepStrictEqual(actual, expected)) {
        throw new FuzzViolation(
          `with limits ${JSON.stringify(limits)}, chunked decoding differs from the reference: ${firstDifference(actual, expected)}`,
        );
      }
    },
  }),
};
