import fc from 'fast-check';
import { scalarValueUnit } from '../../suites/arbitraries/scalar-value-unit.js';

/**
 * One UTF-16 code unit of the surrogate range on its own (U+D800 to U+DFFF). UTF-8 cannot
 * carry one (an encoder writes U+FFFD instead), but a JSON string can, as an escape: RFC 8259's
 * grammar allows `"\ud800"` and calls what a reader then does unpredictable (section 8.2), and
 * `JSON.stringify` writes a lone surrogate that way. So a JSON reader of ours can meet one on
 * the wire.
 */
export const loneSurrogateUnit: fc.Arbitrary<string> = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((unit) => String.fromCharCode(unit));

/**
 * A character of a string the fuzz writes into JSON: any scalar value (`scalarValueUnit`,
 * astral ones, NUL, LF and U+2028 included), and about one time in sixteen a lone surrogate.
 * Two lone surrogates drawn side by side may make a pair, which is one scalar value again.
 * Only for text that goes out through `JSON.stringify` or `\u` escapes: written as UTF-8, a
 * lone surrogate arrives as U+FFFD and tests nothing (bytes.ts has the surrogate's bytes).
 */
export const jsonTextUnit: fc.Arbitrary<string> = fc.oneof(
  { weight: 15, arbitrary: scalarValueUnit },
  { weight: 1, arbitrary: loneSurrogateUnit },
);
