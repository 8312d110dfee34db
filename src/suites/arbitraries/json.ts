import fc from 'fast-check';
import { arbTextUnit } from './text.js';

/** A JSON value as JSON.parse returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * Numbers that survive JSON text unchanged in any language's parser: finite, never -0
 * (JSON.stringify writes it as 0), and a mix of small, safe-integer and fractional values.
 */
export const arbJsonNumber: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 1000 }), weight: 4 },
  { arbitrary: fc.maxSafeInteger(), weight: 1 },
  {
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    weight: 2,
  },
);

/**
 * Object keys: identifiers, the empty key and Unicode. Never `__proto__`: a JS object
 * literal or spread treats it as the prototype, not a key, so it would not round-trip
 * through code that copies objects (zod's record parsing drops it at the top level).
 */
export const arbJsonKey: fc.Arbitrary<string> = fc
  .oneof(
    {
      arbitrary: fc.constantFrom('command', 'path', 'query', 'restart', 'a', '', 'ключ', '😀', 'with space'),
      weight: 2,
    },
    { arbitrary: fc.string({ unit: arbTextUnit, maxLength: 6 }), weight: 3 },
  )
  .filter((k) => k !== '__proto__');

const arbJsonString = fc.string({ unit: arbTextUnit, maxLength: 12 });

export interface ArbJsonOptions {
  /** Deepest nesting of arrays and objects (default 3). */
  maxDepth?: number;
  /** Most keys of one object (default 5). */
  maxKeys?: number;
}

/** Any JSON value (nested arrays and objects, Unicode strings, round-trip-safe numbers). */
export function arbJsonValue(options: ArbJsonOptions = {}): fc.Arbitrary<JsonValue> {
  const { maxDepth = 3, maxKeys = 5 } = options;
  const { value } = fc.letrec<{ value: JsonValue; array: JsonValue[]; object: JsonObject }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      arbJsonNumber,
      arbJsonString,
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(arbJsonKey, tie('value'), { maxKeys, noNullPrototype: true }),
  }));
  return value;
}

/** A JSON object whose values are any JSON values (a tool's `input`). */
export function arbJsonObject(options: ArbJsonOptions = {}): fc.Arbitrary<JsonObject> {
  const { maxDepth = 3, maxKeys = 5 } = options;
  return fc.dictionary(arbJsonKey, arbJsonValue({ maxDepth: Math.max(0, maxDepth - 1), maxKeys }), {
    maxKeys,
    noNullPrototype: true,
  });
}
