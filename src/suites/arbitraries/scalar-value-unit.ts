import fc from 'fast-check';

const FIRST_SURROGATE = 0xd800;
const SURROGATES = 0xe000 - FIRST_SURROGATE;
/** How many code points are scalar values (all but the surrogates). */
export const SCALAR_VALUES = 0x110000 - SURROGATES;

/** The `index`-th scalar value, in code point order, as a string. */
export function scalarAt(index: number): string {
  return String.fromCodePoint(index >= FIRST_SURROGATE ? index + SURROGATES : index);
}

/** The index `scalarAt` maps to `value`; throws for anything but one scalar value (fast-check's unmapper contract). */
function indexOf(value: unknown): number {
  if (typeof value === 'string') {
    const point = value.codePointAt(0);
    if (point !== undefined && String.fromCodePoint(point) === value) {
      if (point < FIRST_SURROGATE) return point;
      if (point >= FIRST_SURROGATE + SURROGATES) return point - SURROGATES;
    }
  }
  throw new TypeError(`not one Unicode scalar value: ${JSON.stringify(value)}`);
}

/**
 * One Unicode scalar value (any code point but the surrogates) as a string: fast-check's
 * `unit: 'binary'` value for value and shrink for shrink (the same `nat` over the same ranges,
 * mapped the same way), without the table of all 1,112,064 values fast-check builds once per
 * process to map one back. Building it took 1.5-1.8 s of CPU, in the middle of a run, with the
 * harness's event loop standing still.
 */
export const scalarValueUnit: fc.Arbitrary<string> = fc
  .nat({ max: SCALAR_VALUES - 1 })
  .map(scalarAt, indexOf);
