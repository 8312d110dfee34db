import fc from 'fast-check';
import type { Tool } from '../../protocol/mcp/index.js';
import { scalarValueUnit } from '../arbitraries/scalar-value-unit.js';

type Schema = Record<string, unknown>;

/** A property named like a duration gets small numbers, so a tool that sleeps as asked stays within budget. */
const DURATION_NAME =
  /duration|delay|timeout|sleep|seconds|secs|millis|ms$|wait|interval|steps|count|size|length/i;

const MAX_DEPTH = 2;

/** Strings of `minLength` to `maxLength` code points (JSON Schema counts code points). */
function codePointString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ minLength, maxLength, unit: scalarValueUnit });
}

/**
 * A fast-check arbitrary of values for one JSON Schema, for the simple types (string,
 * number, integer, boolean, object, array, enum, const, null); anything else (refs,
 * combinators) gets arbitrary JSON. Bounds (minimum, maximum, minLength, maxLength,
 * minItems, maxItems) are honoured where given.
 */
export function arbitraryForSchema(schema: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const type = schema.type;
  if (Array.isArray(type)) {
    const arbs = type.map((t) => arbitraryForSchema({ ...schema, type: t }, name, depth));
    return arbs.length > 0 ? fc.oneof(...arbs) : fc.jsonValue({ maxDepth: 2 });
  }
  const small = DURATION_NAME.test(name);
  switch (type) {
    case 'string':
      return codePointString(
        typeof schema.minLength === 'number' ? schema.minLength : 0,
        typeof schema.maxLength === 'number' ? schema.maxLength : 40,
      );
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : small ? 0 : -1000;
      const max = typeof schema.maximum === 'number' ? Math.floor(schema.maximum) : small ? 2 : 1000;
      return fc.integer({ min: Math.min(min, max), max: Math.max(min, max) });
    }
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : small ? 0 : -1e6;
      const max = typeof schema.maximum === 'number' ? schema.maximum : small ? 1 : 1e6;
      return fc.double({
        min: Math.min(min, max),
        max: Math.max(min, max),
        noNaN: true,
        noDefaultInfinity: true,
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      return fc.array(
        depth >= MAX_DEPTH ? fc.jsonValue({ maxDepth: 1 }) : arbitraryForSchema(items, name, depth + 1),
        {
          minLength: typeof schema.minItems === 'number' ? schema.minItems : 0,
          maxLength: typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, 5) : 5,
        },
      );
    }
    case 'object':
      return depth >= MAX_DEPTH ? fc.constant({}) : objectArbitrary(schema, depth + 1);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object with every required property and any subset of the optional ones. */
function objectArbitrary(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  // No prototype: a property named "constructor" or "__proto__" is a property like any other.
  const model: Record<string, fc.Arbitrary<unknown>> = Object.create(null);
  for (const [key, sub] of Object.entries(props)) model[key] = arbitraryForSchema(sub, key, depth);
  // A required property the schema does not describe still gets a value.
  for (const key of required) model[key] ??= fc.jsonValue({ maxDepth: 1 });
  return fc.record(model, { requiredKeys: required.filter((k) => Object.hasOwn(model, k)) });
}

/** Arguments for a listed tool, generated from its inputSchema. */
export function argumentsArbitrary(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  return objectArbitrary(tool.inputSchema as Schema, 1);
}
