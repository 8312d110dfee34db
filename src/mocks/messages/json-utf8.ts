/**
 * JSON string literals written straight into UTF-8 bytes: the bytes of
 * `Buffer.from(JSON.stringify(s.slice(from, to)))`, without the slice, the JSON string or
 * its encoding. A stream of a hundred thousand short deltas spends most of its building
 * time on those three steps otherwise.
 *
 * The escapes are JSON.stringify's (ECMA-262 QuoteJSONString): `"` and `\` and the short
 * forms `\b \t \n \f \r`; any other code unit below U+0020, and any surrogate that is not
 * half of a pair inside the range, as `\u` and four lowercase hex digits. Everything else,
 * U+2028 and U+2029 included, is written as itself.
 */

/** Bytes of a literal of `units` UTF-16 code units, at most (`\uXXXX` is the longest form of a unit). */
export function maxQuotedBytes(units: number): number {
  return 6 * units + 2;
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

/** The letter of the short escape of each ASCII code unit that has one (`\n`...), else 0. */
const SHORT_ESCAPE = new Uint8Array(0x80);
for (const [unit, letter] of [
  ['"', '"'],
  ['\\', '\\'],
  ['\b', 'b'],
  ['\t', 't'],
  ['\n', 'n'],
  ['\f', 'f'],
  ['\r', 'r'],
] as const) {
  SHORT_ESCAPE[unit.charCodeAt(0)] = letter.charCodeAt(0);
}

/**
 * Writes the literal of `s.slice(from, to)` into `dst` at `at` and returns the offset just
 * after it. `dst` must have room for it: `maxQuotedBytes(to - from)`.
 */
export function writeQuoted(s: string, from: number, to: number, dst: Uint8Array, at: number): number {
  let o = at;
  dst[o++] = 0x22;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    // The common case first; unsigned, `c - 0x20 < 0x60` is 0x20 <= c < 0x80 in one comparison.
    if ((c - 0x20) >>> 0 < 0x60 && c !== 0x22 && c !== 0x5c) {
      dst[o++] = c;
      continue;
    }
    if (c < 0x80) {
      dst[o++] = 0x5c;
      const letter = SHORT_ESCAPE[c]!;
      if (letter !== 0) dst[o++] = letter;
      else {
        dst[o++] = 0x75;
        dst[o++] = 0x30;
        dst[o++] = 0x30;
        dst[o++] = HEX[c >> 4]!;
        dst[o++] = HEX[c & 15]!;
      }
    } else if (c < 0x800) {
      dst[o++] = 0xc0 | (c >> 6);
      dst[o++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      dst[o++] = 0xe0 | (c >> 12);
      dst[o++] = 0x80 | ((c >> 6) & 0x3f);
      dst[o++] = 0x80 | (c & 0x3f);
    } else {
      const low = i + 1 < to ? s.charCodeAt(i + 1) : 0;
      if (c < 0xdc00 && (low & 0xfc00) === 0xdc00) {
        const p = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        dst[o++] = 0xf0 | (p >> 18);
        dst[o++] = 0x80 | ((p >> 12) & 0x3f);
        dst[o++] = 0x80 | ((p >> 6) & 0x3f);
        dst[o++] = 0x80 | (p & 0x3f);
        i++;
      } else {
        // A lone surrogate: JSON.stringify escapes it, so the output stays valid UTF-8.
        dst[o++] = 0x5c;
        dst[o++] = 0x75;
        dst[o++] = HEX[c >> 12]!;
        dst[o++] = HEX[(c >> 8) & 15]!;
        dst[o++] = HEX[(c >> 4) & 15]!;
        dst[o++] = HEX[c & 15]!;
      }
    }
  }
  dst[o++] = 0x22;
  return o;
}
