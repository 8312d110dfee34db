import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth, parseJsonBounded, prefixRefusal } from '../../src/protocol/json/index.js';

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

  it('refuses the shortest text deeper than the limit: as many characters as the limit, plus one', () => {
    expect(parseJsonBounded('[[[[', { maxDepth: 3 })).toEqual({
      ok: false,
      reason: 'too-deep',
      message: 'JSON nested deeper than the 3-level limit (maxDepth): level 4 at offset 3',
    });
    expect(parseJsonBounded('[[[', { maxDepth: 3 })).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseJsonBounded('[[[]]]', { maxDepth: 3 })).toEqual({ ok: true, value: [[[]]] });
  });

  it('refuses exactly the texts deeper than the limit, short or long', () => {
    const brackets = fc
      .array(
        fc.oneof(
          { arbitrary: fc.constantFrom('[', '{'), weight: 3 },
          { arbitrary: fc.constantFrom(']', '}', '"', '\\', '1', ','), weight: 2 },
        ),
        { maxLength: 30 },
      )
      // Opened by a bracket: a text that cannot start a value is refused as such first.
      .map((chars) => `[${chars.join('')}`);
    fc.assert(
      fc.property(brackets, fc.integer({ min: 0, max: 12 }), (text, maxDepth) => {
        const tooDeep = jsonDepth(text).depth > maxDepth;
        expect(parseJsonBounded(text, { maxDepth }).ok === false && tooDeep).toBe(tooDeep);
        if (tooDeep) expect(parseJsonBounded(text, { maxDepth })).toMatchObject({ reason: 'too-deep' });
      }),
      { numRuns: 300 },
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

describe('prefixRefusal', () => {
  it('names the first character no JSON text can have there', () => {
    expect(prefixRefusal('  not json')).toEqual({ char: 'o', position: 3 });
    expect(prefixRefusal('Starting server')).toEqual({ char: 'S', position: 0 });
    expect(prefixRefusal('2026 started')).toEqual({ char: 's', position: 5 });
    expect(prefixRefusal('true story')).toEqual({ char: 's', position: 5 });
  });

  it('cannot tell from an object, array or string, a value up to the end, a number going on, or a trimmed character', () => {
    for (const head of [
      '{"a":',
      '[1,',
      '"x',
      'nul',
      'null   ',
      '12',
      '12-11',
      '1.x',
      '\vx',
      '\u00a0x',
      '   ',
    ]) {
      expect(prefixRefusal(head), head).toBeUndefined();
    }
  });

  it('refuses only heads of texts that are not JSON, whatever follows', () => {
    const head = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('null', 'true', 'false', '-0.5e+2', '0', 'nulx', ' 7 '),
      fc.json(),
    );
    fc.assert(
      fc.property(head, fc.string({ maxLength: 12 }), (h, rest) => {
        if (prefixRefusal(h) === undefined) return;
        const text = h + rest;
        expect(text.trim()).not.toBe('');
        expect(() => JSON.parse(text)).toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
