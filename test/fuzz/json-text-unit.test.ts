import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonTextUnit, loneSurrogateUnit } from '../../src/fuzz/mutations/json-text-unit.js';
import { arbMessageTemplate, renderMessages } from '../../src/fuzz/mutations/jsonrpc.js';
import { arbHttpCase } from '../../src/fuzz/surfaces/mock-messages-http.js';
import { arbRunnerCase } from '../../src/fuzz/surfaces/runner-json-lines.js';

const isLoneSurrogate = (s: string): boolean =>
  s.length === 1 && s.charCodeAt(0) >= 0xd800 && s.charCodeAt(0) <= 0xdfff;
const isScalarValue = (s: string): boolean => {
  const point = s.codePointAt(0);
  return point !== undefined && String.fromCodePoint(point) === s && (point < 0xd800 || point > 0xdfff);
};
/** A surrogate as JSON.stringify writes one alone (it writes a pair as the character itself). */
const ESCAPED_SURROGATE = /\\ud[89a-f][0-9a-f]{2}/;
/** A high surrogate's escape with or without a low one's right after it, or a low one's alone. */
const SURROGATE_ESCAPES = /\\u(d[89ab][0-9a-f]{2})(\\ud[c-f][0-9a-f]{2})?|\\ud[c-f][0-9a-f]{2}/gi;
/**
 * Whether the text escapes a surrogate that is not half of a pair. The fuzz's `escaped` layout
 * writes every code unit as `\uXXXX`, pairs included, so an escape alone proves nothing.
 */
const escapesLoneSurrogate = (text: string): boolean =>
  [...text.matchAll(SURROGATE_ESCAPES)].some((m) => m[1] === undefined || m[2] === undefined);
const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');

describe('jsonTextUnit: scalar values and, now and then, a lone surrogate', () => {
  test('it draws lone surrogates from both halves of the range beside scalar values, and nothing else', () => {
    const drawn = fc.sample(jsonTextUnit, { seed: 7, numRuns: 2_000 });
    expect(drawn.every((unit) => isLoneSurrogate(unit) || isScalarValue(unit))).toBe(true);
    const lone = drawn.filter(isLoneSurrogate);
    // One draw in sixteen: about 125 of 2,000.
    expect(lone.length).toBeGreaterThan(60);
    expect(lone.length).toBeLessThan(250);
    expect(lone.some((unit) => unit.charCodeAt(0) < 0xdc00)).toBe(true);
    expect(lone.some((unit) => unit.charCodeAt(0) >= 0xdc00)).toBe(true);
    expect(drawn.filter(isScalarValue).some((unit) => unit.length === 2)).toBe(true);
  });

  test('JSON.stringify writes a lone surrogate as an ASCII escape, which JSON.parse reads back as itself', () => {
    fc.assert(
      fc.property(loneSurrogateUnit, (unit) => {
        const text = JSON.stringify(unit);
        expect(text).toMatch(new RegExp(`^"${ESCAPED_SURROGATE.source}"$`));
        expect(Buffer.from(text, 'utf8').every((byte) => byte < 0x80)).toBe(true);
        expect(JSON.parse(text)).toBe(unit);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  test('the JSON-RPC, runner and mock-messages fuzz cases carry escaped lone surrogates', () => {
    expect(escapesLoneSurrogate(JSON.stringify('a\u{1F600}\uD800'))).toBe(true);
    expect(escapesLoneSurrogate('"\\ud83d\\ude00"')).toBe(false);
    const rpc = fc
      .sample(arbMessageTemplate, { seed: 7, numRuns: 3_000 })
      .flatMap((template) => renderMessages([template]).map((m) => latin1(m.body)));
    expect(rpc.some(escapesLoneSurrogate)).toBe(true);

    const lines = fc
      .sample(arbRunnerCase, { seed: 7, numRuns: 1_000 })
      .flatMap((c) => c.items.map((item) => latin1(item.body)));
    expect(lines.some(escapesLoneSurrogate)).toBe(true);

    const bodies = fc
      .sample(arbHttpCase, { seed: 7, numRuns: 3_000 })
      .flatMap((c) =>
        c.via === 'inject' ? (c.body === undefined ? [] : [latin1(c.body)]) : [latin1(c.bytes)],
      );
    expect(bodies.some(escapesLoneSurrogate)).toBe(true);
  });
});
