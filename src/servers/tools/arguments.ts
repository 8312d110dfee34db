import { describeJson } from '../../protocol/jsonrpc/index.js';
import type { ToolInputSchema } from '../../protocol/mcp/index.js';

/** Arguments checked against a tool's schema, defaults filled in; or why they do not fit. */
export type CheckedArguments =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

export type ArgumentChecker = (args: Record<string, unknown>) => CheckedArguments;

interface PropertyRule {
  readonly key: string;
  readonly types: readonly string[] | undefined;
  readonly hasDefault: boolean;
  readonly fallback: unknown;
}

/**
 * Compile a tool's input schema once into a cheap checker: the declared type of each
 * property (JSON Schema's basic types), `required`, and the `default`s. Keywords beyond
 * those are the tool's own business; undeclared properties pass, as JSON Schema allows
 * them unless `additionalProperties` is false.
 */
export function compileArgumentChecker(schema: ToolInputSchema): ArgumentChecker {
  const rules: PropertyRule[] = Object.entries(schema.properties ?? {}).map(([key, p]) => ({
    key,
    types: p.type === undefined ? undefined : Array.isArray(p.type) ? p.type : [p.type],
    hasDefault: 'default' in p,
    fallback: p.default,
  }));
  const required = schema.required ?? [];
  const closed = (schema as { additionalProperties?: unknown }).additionalProperties === false;
  const declared = new Set(rules.map((r) => r.key));

  // Own keys only: an absent "toString" is absent, not Object's method.
  const own = (args: Record<string, unknown>, key: string) =>
    Object.hasOwn(args, key) ? args[key] : undefined;
  return (args) => {
    for (const key of required) {
      if (own(args, key) === undefined)
        return { ok: false, reason: `missing required argument ${JSON.stringify(key)}` };
    }
    let out = args;
    for (const rule of rules) {
      const value = own(args, rule.key);
      if (value === undefined) {
        if (rule.hasDefault) {
          if (out === args) out = { ...args };
          out[rule.key] = rule.fallback;
        }
        continue;
      }
      if (rule.types !== undefined && !rule.types.some((t) => hasType(value, t))) {
        return {
          ok: false,
          reason: `argument ${JSON.stringify(rule.key)}: expected ${rule.types.join(' or ')}, got ${describeJson(value)}`,
        };
      }
    }
    if (closed) {
      for (const key of Object.keys(args)) {
        if (!declared.has(key)) return { ok: false, reason: `unexpected argument ${JSON.stringify(key)}` };
      }
    }
    return { ok: true, args: out };
  };
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      // A type this checker does not know is not its business to refuse.
      return true;
  }
}
