import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth, parseJsonBounded } from '../../src/protocol/json/index.js';

describe('parseJsonBounded', () => {
  it('parses JSON within the limits', () => {
    expect(parseJsonBounded('{"a":[1,{"b":"[[["}]}')).toEqual({ ok: true, value: { a: [1, { b: '[[[' }] } });
  });

  it('refuses a text nested deeper than the limit before parsing it', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const got = parseJsonBounded(deep, { maxDepth: 512 });
    expect(got).toMatchObject({ ok: false, reason: 'too-deep' });
    expect(got.ok === false && got.message).toBe(
      'JSON nested deeper than the 512-level limit (maxDepth): level 513 at offset 512',
    );
  });

  it('refuses a text longer than the limit', () => {
    expect(parseJsonBounded('"abcdef"', { maxLength: 4 })).toEqual({
      ok: false,
      reason: 'too-long',
      message: 'JSON text longer than the 4-character limit (maxLength): 8 characters',
    });
  });

  it('reports a syntax error as JSON.parse does, without throwing', () => {
    expect(parseJsonBounded('{"a":')).toMatchObject({ ok: false, reason: 'syntax' });
  });

  it('refuses text that cannot start a JSON value without parsing it, and parses what can', () => {
    expect(parseJsonBounded('  y')).toEqual({
      ok: false,
      reason: 'syntax',
      message: 'Unexpected token "y" at position 2: not JSON',
    });
    for (const text of ['{}', '[1]', '"s"', '-1', '0', 'true', 'false', 'null', ' \t\r\n7']) {
      expect(parseJsonBounded(text)).toEqual({ ok: true, value: JSON.parse(text) });
    }
    expect(parseJsonBounded('')).toMatchObject({ ok: false, reason: 'syntax' });
  });

  it('agrees with JSON.parse on whether any text is JSON', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        let parsed: unknown;
        let valid = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          valid = false;
        }
        const got = parseJsonBounded(text);
        expect(got.ok).toBe(valid);
        if (got.ok) expect(got.value).toEqual(parsed);
      }),
    );
  });

  it('counts no bracket inside a string, escaped quotes included', () => {
    expect(jsonDepth('["\\"[[[", {"k": "]}"}]').depth).toBe(2);
  });

  it('measures the depth JSON.stringify produces for any value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        expect(jsonDepth(text).depth).toBe(depthOf(value));
      }),
    );
  });
});

function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}
