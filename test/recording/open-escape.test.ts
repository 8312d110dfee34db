import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { openEscapeAt } from '../../src/recording/redact.js';

describe('openEscapeAt: an escape the end of a text cuts short', () => {
  // What it stands for, read from the end instead: the first match of a pattern anchored at the end.
  const OPEN_ESCAPE = /(?:\\+(?:u[0-9A-Fa-f]{0,3})?|%[0-7]?)$/;

  test('property: where the pattern of such escapes first matches', () => {
    const text = fc
      .array(fc.constantFrom('\\', 'u', 'a', 'F', '3', '9', '%', '8', 'x'), { maxLength: 12 })
      .map((cs) => cs.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(openEscapeAt(t), JSON.stringify(t)).toBe(OPEN_ESCAPE.exec(t)?.index ?? -1);
      }),
      { numRuns: 5000 },
    );
  });

  test('examples', () => {
    expect(openEscapeAt('ab\\\\\\u12')).toBe(2);
    expect(openEscapeAt('ab\\u1234')).toBe(-1);
    expect(openEscapeAt('ab%7')).toBe(2);
    expect(openEscapeAt('ab%8')).toBe(-1);
    expect(openEscapeAt('')).toBe(-1);
    expect(openEscapeAt(`${'\\'.repeat(100_000)}x`)).toBe(-1);
  });
});
