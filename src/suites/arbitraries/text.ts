import fc from 'fast-check';
import { SCALAR_VALUES, scalarAt } from './scalar-value-unit.js';

/**
 * Characters chosen for what they do to a stream, grouped by their UTF-8 length so a
 * chunk cut lands inside 2-, 3- and 4-byte sequences often.
 */
export const SPECIAL_CHARACTERS = {
  /** JSON must escape these; a raw CR or LF in a data line would end it. */
  escaped: ['"', '\\', '\n', '\r', '\t', '\u0000', '\u0008', '\u001f', '\u007f', '/'],
  twoBytes: ['é', 'ß', 'ñ', 'Ж', 'д', 'Ω', '\u0085', '\u0301'],
  /** U+2028/2029 are line breaks to some splitters but not to SSE; U+FEFF is a BOM mid-text. */
  threeBytes: ['中', '文', '€', 'ह', '\u2028', '\u2029', '\uFEFF', '\uFFFD', '\u200D'],
  fourBytes: ['😀', '👋', '🦀', '𝄞', '𠜎', '\u{10FFFF}'],
  /** Several code points that render as one character. */
  clusters: ['👩‍💻', '🇺🇦', 'e\u0301', '👍🏽'],
  /** SSE syntax inside a string: harmless once JSON-encoded, fatal to a naive splitter. */
  sseLookalikes: ['data: ', 'event: message_stop', ': ', '\n\n', '\r\n\r\n', 'id: 1'],
} as const;

const specialCharacter = fc.constantFrom(...Object.values(SPECIAL_CHARACTERS).flat());

/**
 * Any Unicode scalar value (every code point but the surrogates): the values of
 * `scalarValueUnit`, without its way back, so `fc.string` mixes none of its "dangerous strings"
 * into texts made of it (as ever: every seed keeps its texts).
 */
export const arbCodePoint: fc.Arbitrary<string> = fc
  .integer({ min: 0, max: SCALAR_VALUES - 1 })
  .map(scalarAt);

/** One unit of text: mostly printable ASCII, often a special character, now and then any code point. */
export const arbTextUnit: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }), weight: 6 },
  { arbitrary: specialCharacter, weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 2 }), weight: 1 },
  { arbitrary: fc.string({ unit: arbCodePoint, minLength: 1, maxLength: 2 }), weight: 1 },
);

export interface ArbTextOptions {
  /** Most units in an ordinary text (default 40). */
  maxUnits?: number;
  /** Most units in the occasional long text (default 600, about 2-4 KB). */
  maxLongUnits?: number;
}

/**
 * Text as a model could produce it: well-formed Unicode (never a lone surrogate), with
 * multi-byte characters and emoji; now and then empty or whitespace only, now and then long.
 */
export function arbText(options: ArbTextOptions = {}): fc.Arbitrary<string> {
  const { maxUnits = 40, maxLongUnits = 600 } = options;
  return fc.oneof(
    { arbitrary: fc.constantFrom('', ' ', '\n', '\t', '\r\n', '  \n\n  '), weight: 1 },
    { arbitrary: fc.string({ unit: arbTextUnit, maxLength: maxUnits }), weight: 8 },
    {
      arbitrary: fc.string({ unit: arbTextUnit, minLength: maxUnits, maxLength: maxLongUnits }),
      weight: 1,
    },
  );
}

/** Non-empty short text (stop sequences, names shown to users). */
export function arbShortText(maxUnits = 8): fc.Arbitrary<string> {
  return fc.string({ unit: arbTextUnit, minLength: 1, maxLength: maxUnits });
}

/** `prefix` followed by ASCII letters and digits, like the real API's identifiers. */
export function arbIdentifier(prefix: string, minLength = 8, maxLength = 24): fc.Arbitrary<string> {
  const alnum = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
  return fc.string({ unit: alnum, minLength, maxLength }).map((s) => `${prefix}${s}`);
}
