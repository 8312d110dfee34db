import fc from 'fast-check';
import { expect, test } from 'vitest';
import { maxQuotedBytes, writeQuoted } from '../../../src/mocks/messages/json-utf8.js';

/** What writeQuoted must produce: the UTF-8 bytes of JSON.stringify of the slice. */
const expected = (s: string, from = 0, to = s.length) =>
  Buffer.from(JSON.stringify(s.slice(from, to)), 'utf8');

/** The bytes writeQuoted writes between untouched guard bytes; throws if it wrote outside its room. */
function quoted(s: string, from = 0, to = s.length): Buffer {
  const dst = Buffer.alloc(maxQuotedBytes(to - from) + 8, 0xee);
  const end = writeQuoted(s, from, to, dst, 3);
  const guards = Buffer.concat([dst.subarray(0, 3), dst.subarray(end)]);
  if (end > dst.length - 5 || guards.some((b) => b !== 0xee)) throw new Error('wrote outside its room');
  return dst.subarray(3, end);
}

const CONTROLS = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join('');

test.each([
  ['empty', ''],
  ['plain ASCII', 'hello, world'],
  ['quotes and backslashes', 'say "hi" \\ a\\b \\"'],
  ['every control character', CONTROLS],
  ['DEL and the last Latin-1 character', '\u007f\u00ff'],
  ['Latin-1 and two-byte boundaries', 'ünïcode \u0080\u07ff\u0800'],
  ['CJK and the last BMP character', '你好 \uffff \ufffe \ufeff'],
  ['emoji (surrogate pairs)', '👋🏽 family 👨‍👩‍👧 end'],
  ['U+2028 and U+2029 as themselves', 'line\u2028para\u2029'],
  ['a lone high surrogate', 'a\ud83dz'],
  ['a lone low surrogate', 'a\udc4bz'],
  ['a low surrogate before a high one', '\udc4b\ud83d'],
  ['a high surrogate at the very end', 'end\ud83d'],
  ['two high surrogates then a low one', '\ud83d\ud83d\udc4b'],
])('%s is quoted as JSON.stringify quotes it, in UTF-8', (_name, text) => {
  expect(quoted(text)).toEqual(expected(text));
});

test('a surrogate pair cut by the range is two lone surrogates, each escaped', () => {
  const s = 'x👋y';
  expect(quoted(s, 0, 2)).toEqual(expected(s, 0, 2));
  expect(quoted(s, 2, 4)).toEqual(expected(s, 2, 4));
  expect(quoted(s, 0, 2).toString()).toBe('"x\\ud83d"');
  expect(quoted(s, 1, 3)).toEqual(Buffer.from('"👋"'));
});

test('any UTF-16 text, cut anywhere, is quoted as JSON.stringify quotes it', () => {
  const unit = fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('"', '\\', '\n', '\u2028', '👋', '\ud83d', '\udc4b', 'é'),
    fc.integer({ min: 0x10000, max: 0x10ffff }).map((p) => String.fromCodePoint(p)),
  );
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 40 }), fc.nat(), fc.nat(), (units, a, b) => {
      const s = units.join('');
      const from = s.length === 0 ? 0 : a % (s.length + 1);
      const to = from + (s.length === 0 ? 0 : b % (s.length - from + 1));
      // equals(), not toEqual: this runs hundreds of times; fast-check reports the input.
      expect(quoted(s, from, to).equals(expected(s, from, to))).toBe(true);
    }),
    { numRuns: 1000 },
  );
});
