import fc from 'fast-check';
import type { Tool } from '../../protocol/mcp/index.js';
import { scalarValueUnit } from '../arbitraries/scalar-value-unit.js';

type Schema = Record<string, unknown>;

/** A property named like a duration gets small numbers, so a tool that sleeps as asked stays within budget. */
const DURATION_NAME =
  /duration|delay|timeout|sleep|seconds|secs|millis|ms$|wait|interval|steps|count|size|length/i;

const MAX_DEPTH = 2;

/** Most characters and items a schema may ask for at least: a hash of 66, an embedding of 1,536 fit. */
const MAX_LEAST_LENGTH = 4096;

/**
 * Most values (characters, items, numbers) the smallest arguments of a tool may take: past it
 * a call would be megabytes (a list of 1,000 lists of 1,000 items).
 */
const MAX_LEAST_ARGUMENTS = 65_536;

/** A tool whose arguments the generator cannot make (contradictory or huge bounds): it is left out of the calls. */
export class UngeneratedSchema extends Error {
  override name = 'UngeneratedSchema';
}

/** `minimum` and `maximum` lengths as given (finite numbers, whole, not negative), refusing what cannot be made. */
function lengthRange(
  schema: Schema,
  least: string,
  most: string,
  name: string,
): [number, number | undefined] {
  const bound = (v: unknown, round: (n: number) => number) =>
    typeof v === 'number' && Number.isFinite(v) ? Math.max(0, round(v)) : undefined;
  const min = bound(schema[least], Math.ceil) ?? 0;
  const max = bound(schema[most], Math.floor);
  const where = name === '' ? '' : ` of ${JSON.stringify(name)}`;
  if (max !== undefined && max < min) {
    throw new UngeneratedSchema(`${least} ${min} is more than ${most} ${max}${where}: no value fits`);
  }
  if (min > MAX_LEAST_LENGTH) {
    throw new UngeneratedSchema(`${least} ${min}${where} is more than the ${MAX_LEAST_LENGTH} generated`);
  }
  return [min, max];
}

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
    case 'string': {
      const [min, max] = lengthRange(schema, 'minLength', 'maxLength', name);
      return codePointString(min, max ?? Math.max(min, 40));
    }
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
      const [min, max] = lengthRange(schema, 'minItems', 'maxItems', name);
      return fc.array(
        depth >= MAX_DEPTH ? fc.jsonValue({ maxDepth: 1 }) : arbitraryForSchema(items, name, depth + 1),
        { minLength: min, maxLength: Math.max(min, Math.min(max ?? 5, 5)) },
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

/**
 * Arguments for a listed tool, generated from its inputSchema; UngeneratedSchema when no
 * arguments fit it, or the smallest that do are too large to send.
 */
export function argumentsArbitrary(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const schema = tool.inputSchema as Schema;
  const arbitrary = objectArbitrary(schema, 1);
  // The arguments object is made as an object property is at depth 0.
  const least = leastSize(schema, 0);
  if (least > MAX_LEAST_ARGUMENTS) {
    throw new UngeneratedSchema(
      `its smallest arguments hold ${least} values, more than the ${MAX_LEAST_ARGUMENTS} generated`,
    );
  }
  return arbitrary;
}

/**
 * How many values (characters, items, scalars) the smallest value of `schema` holds, as
 * arbitraryForSchema at `depth` makes it.
 */
function leastSize(schema: Schema, depth: number): number {
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.ceil(v)) : 0);
  if ((Array.isArray(schema.enum) && schema.enum.length > 0) || 'const' in schema) return 1;
  if (schema.type === 'string') return count(schema.minLength);
  if (schema.type === 'array') {
    const items = (schema.items as Schema | undefined) ?? {};
    return count(schema.minItems) * (depth >= MAX_DEPTH ? 1 : Math.max(1, leastSize(items, depth + 1)));
  }
  if (schema.type === 'object' && depth < MAX_DEPTH) {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    return required.reduce(
      (sum, key) => sum + 1 + leastSize(Object.hasOwn(props, key) ? props[key]! : {}, depth + 1),
      0,
    );
  }
  return 1;
}

/** An arbitrary of calls per tool whose arguments can be generated; the others named with why. */
export function toolArbitraries(tools: readonly Tool[]) {
  const arbitraries: fc.Arbitrary<{ tool: string; args: Record<string, unknown> }>[] = [];
  const leftOut: string[] = [];
  for (const tool of tools) {
    try {
      arbitraries.push(argumentsArbitrary(tool).map((args) => ({ tool: tool.name, args })));
    } catch (e) {
      if (!(e instanceof UngeneratedSchema)) throw e;
      leftOut.push(`${tool.name}: ${e.message}`);
    }
  }
  return { arbitraries, leftOut };
}
