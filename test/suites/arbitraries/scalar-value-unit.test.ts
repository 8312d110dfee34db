import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { scalarValueUnit } from '../../../src/suites/arbitraries/scalar-value-unit.js';

describe('scalarValueUnit', () => {
  test("gives the strings of fast-check's unit 'binary', seed for seed", () => {
    for (const seed of [3, 11, 2026]) {
      const ours = fc.string({ unit: scalarValueUnit, maxLength: 30 });
      const binary = fc.string({ unit: 'binary', maxLength: 30 });
      expect(fc.sample(ours, { seed, numRuns: 300 })).toEqual(fc.sample(binary, { seed, numRuns: 300 }));
      // How fast-check builds that unit: one constant per code point of the two ranges.
      const ranges = fc.mapToConstant(
        { num: 0xd800, build: (i) => String.fromCodePoint(i) },
        { num: 0x110000 - 0xe000, build: (i) => String.fromCodePoint(0xe000 + i) },
      );
      expect(fc.sample(scalarValueUnit, { seed, numRuns: 300 })).toEqual(
        fc.sample(ranges, { seed, numRuns: 300 }),
      );
    }
  });

  test('maps every scalar value back, the ends of both ranges included', () => {
    for (const value of ['\u0000', 'a', '\uD7FF', '\uE000', '😀', '\u{10FFFF}']) {
      expect(scalarValueUnit.canShrinkWithoutContext(value)).toBe(true);
    }
  });

  test('maps back nothing that is not one scalar value', () => {
    for (const value of ['', 'ab', 'a😀', '\uD800', '\uDFFF', '\uDBFF', 7, null, undefined]) {
      expect(scalarValueUnit.canShrinkWithoutContext(value)).toBe(false);
    }
  });
});
