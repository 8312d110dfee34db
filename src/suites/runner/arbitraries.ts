import fc from 'fast-check';
import { OUTPUT_LIMIT_BYTES } from '../../protocol/bash/index.js';

/** Characters of 1, 2, 3 and 4 bytes: a cut at the limit lands inside each of them. */
const FILL = ['a', 'é', '€', '😀'] as const;
const TAIL = ['a', 'x', 'é', '€', '中', '😀', '\n', ' '] as const;

/** A byte size, mostly near the limit, sometimes small, sometimes anywhere up to a little over. */
const arbSize = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 3, arbitrary: fc.integer({ min: OUTPUT_LIMIT_BYTES - 40, max: OUTPUT_LIMIT_BYTES + 40 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: OUTPUT_LIMIT_BYTES + 6000 }) },
);

/**
 * The text one stream prints: empty, or a non-blank run of one fill character of about
 * the chosen byte size followed by a few mixed characters (which shift where the cut
 * falls). Always valid UTF-8.
 */
export const arbStreamText: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc
      .record({
        fill: fc.constantFrom(...FILL),
        size: arbSize,
        tail: fc.array(fc.constantFrom(...TAIL), { maxLength: 8 }),
      })
      .map(
        ({ fill, size, tail }) =>
          `x${fill.repeat(Math.max(0, Math.floor((size - 1) / Buffer.byteLength(fill))))}${tail.join('')}`,
      ),
  },
);

/** What a command prints on stdout and stderr; never both empty (blank output has its own rule). */
export const arbCommandOutput: fc.Arbitrary<{ stdout: string; stderr: string }> = fc
  .record({ stdout: arbStreamText, stderr: arbStreamText })
  .filter(({ stdout, stderr }) => stdout !== '' || stderr !== '');
