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

/**
 * A subschema as JSON Schema allows it: an object, or a boolean (`true`: any value, as `{}`).
 * `false` (no value fits) and what is no schema at all (null, a string) cannot be generated
 * for: UngeneratedSchema, so that the tool is left out of the calls and named, never judged.
 */
function subschema(value: unknown, name: string): Schema {
  if (value === true) return {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Schema;
  const where = name === '' ? '' : ` of ${JSON.stringify(name)}`;
  if (value === false) throw new UngeneratedSchema(`the schema${where} is false: no value fits`);
  const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  throw new UngeneratedSchema(`the schema${where} is ${what}, not a JSON Schema`);
}

/** The schema of an array's items: absent, or a tuple's list (not generated item by item), allows any value. */
function itemsOf(schema: Schema, name: string): Schema {
  return schema.items === undefined || Array.isArray(schema.items)
    ? {}
    : subschema(schema.items, `${name}[]`);
}

/** The JSON Schema type names, the only members of a `type` list a value is generated for. */
const TYPE_NAMES: ReadonlySet<unknown> = new Set([
  'string',
  'integer',
  'number',
  'boolean',
  'null',
  'array',
  'object',
]);

/**
 * A bound of fc.integer within the safe integers: past them it makes Infinity, or spends
 * minutes on one value (minimum 1e300, maximum 1e301), the event loop blocked all along.
 */
function safeInteger(n: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, n));
}

/** Strings of `minLength` to `maxLength` code points (JSON Schema counts code points). */
function codePointString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ minLength, maxLength, unit: scalarValueUnit });
}

/**
 * A fast-check arbitrary of values for one JSON Schema, for the simple types (string,
 * number, integer, boolean, object, array, enum, const, null); anything else (refs,
 * combinators, `true`) gets arbitrary JSON. Bounds (minimum, maximum, minLength, maxLength,
 * minItems, maxItems) are honoured where given. UngeneratedSchema for `false` and for what is
 * no schema (null, a string), here or in a nested subschema.
 */
export function arbitraryForSchema(given: unknown, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = subschema(given, name);
  const values = schema.enum;
  if (Array.isArray(values) && values.length > 0) {
    // An index, not fc.constantFrom(...values): an enum of 130,000 values, spread into a call,
    // overflows the stack.
    return fc.integer({ min: 0, max: values.length - 1 }).map((i) => values[i] as unknown);
  }
  if ('const' in schema) return fc.constant(schema.const);
  const type = schema.type;
  if (Array.isArray(type)) {
    // Each type once: the list is the server's, and may be as long as it likes.
    const names = [...new Set(type)].filter((t) => TYPE_NAMES.has(t));
    const arbs = names.map((t) => arbitraryForSchema({ ...schema, type: t }, name, depth));
    return arbs.length > 0 ? fc.oneof(...arbs) : fc.jsonValue({ maxDepth: 2 });
  }
  const small = DURATION_NAME.test(name);
  switch (type) {
    case 'string': {
      const [min, max] = lengthRange(schema, 'minLength', 'maxLength', name);
      return codePointString(min, max ?? Math.max(min, 40));
    }
    case 'integer': {
      const min =
        typeof schema.minimum === 'number' ? safeInteger(Math.ceil(schema.minimum)) : small ? 0 : -1000;
      const max =
        typeof schema.maximum === 'number' ? safeInteger(Math.floor(schema.maximum)) : small ? 2 : 1000;
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
      const items = itemsOf(schema, name);
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
  const props = propertiesOf(schema);
  const required = requiredOf(schema);
  // No prototype: a property named "constructor" or "__proto__" is a property like any other.
  const model: Record<string, fc.Arbitrary<unknown>> = Object.create(null);
  for (const [key, sub] of Object.entries(props)) model[key] = arbitraryForSchema(sub, key, depth);
  // A required property the schema does not describe still gets a value.
  for (const key of required) model[key] ??= fc.jsonValue({ maxDepth: 1 });
  return fc.record(model, { requiredKeys: required.filter((k) => Object.hasOwn(model, k)) });
}

/** The `properties` of an object schema; one that is not an object names none. */
function propertiesOf(schema: Schema): Record<string, unknown> {
  const props = schema.properties;
  return typeof props === 'object' && props !== null && !Array.isArray(props)
    ? (props as Record<string, unknown>)
    : {};
}

/** The names `required` lists; what is not a string names no property. */
function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === 'string')
    : [];
}

/**
 * Arguments for a listed tool, generated from its inputSchema; UngeneratedSchema when no
 * arguments fit it, or the smallest that do are too large to send.
 */
export function argumentsArbitrary(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const schema = subschema(tool.inputSchema, '');
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
function leastSize(given: unknown, depth: number, name = ''): number {
  const schema = subschema(given, name);
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.ceil(v)) : 0);
  if ((Array.isArray(schema.enum) && schema.enum.length > 0) || 'const' in schema) return 1;
  if (schema.type === 'string') return count(schema.minLength);
  if (schema.type === 'array') {
    const items = itemsOf(schema, name);
    return count(schema.minItems) * (depth >= MAX_DEPTH ? 1 : Math.max(1, leastSize(items, depth + 1, name)));
  }
  if (schema.type === 'object' && depth < MAX_DEPTH) {
    const props = propertiesOf(schema);
    return requiredOf(schema).reduce(
      (sum, key) => sum + 1 + leastSize(Object.hasOwn(props, key) ? props[key] : {}, depth + 1, key),
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
