import type { Tool } from '../../protocol/mcp/index.js';

// Which listed tools the checks call. The spec names no tools but the reference's
// diagnostic tool, so the suite picks by name and schema and avoids tools whose names say
// they are slow or reach the network (server-everything's long-running operation and gzip
// fetcher, for example), which would make a check slow without telling anything more.

type Schema = Record<string, unknown>;

const SLOW_OR_NETWORK = /long|slow|sleep|wait|delay|sampling|elicit|fetch|download|gzip|url|research|roots/i;
const VERBOSITY = ['verbose', 'detailed'];

function properties(tool: Tool): Record<string, Schema> {
  return (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
}

function isSchemaObject(schema: unknown): schema is Schema {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
}

function required(tool: Tool): string[] {
  return Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [];
}

/** The optional boolean verbosity argument of a tool (spec: "verbose or detailed, default false"), if it has one. */
export function verbosityArgument(tool: Tool): string | undefined {
  return VERBOSITY.find(
    (name) => properties(tool)[name]?.type === 'boolean' && !required(tool).includes(name),
  );
}

/**
 * The diagnostic tool (spec "Reference tool behaviours"): named like one (diagnostic,
 * health), or described as one and taking the optional boolean verbose/detailed argument.
 */
export function findDiagnosticTool(tools: readonly Tool[]): Tool | undefined {
  const byName = tools.find((t) => /diagnos|health/i.test(t.name));
  if (byName !== undefined) return byName;
  return tools.find(
    (t) =>
      verbosityArgument(t) !== undefined &&
      required(t).length === 0 &&
      /diagnos|health|status|process/i.test(`${t.name} ${t.description ?? ''}`),
  );
}

/**
 * A value valid for a simple property schema, preferring its default and its enum. A schema
 * that is no object (`true`, or one the list's checks judge) gets a string, as an untyped one does.
 */
export function minimalValue(schema: unknown): unknown {
  if (!isSchemaObject(schema)) return 'wirecheck';
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : 1;
    case 'boolean':
      return false;
    case 'object':
      return {};
    case 'array':
      return [];
    case 'null':
      return null;
    default:
      return 'wirecheck';
  }
}

/** Arguments holding every required property with a minimal valid value. */
export function minimalArguments(tool: Tool): Record<string, unknown> {
  const props = properties(tool);
  const schemaOf = (name: string) => (Object.hasOwn(props, name) ? props[name] : undefined) ?? {};
  return Object.fromEntries(required(tool).map((name) => [name, minimalValue(schemaOf(name))]));
}

/** Tools the suite calls freely: not named like slow or network tools. */
export function callableTools(tools: readonly Tool[]): Tool[] {
  return tools.filter((t) => !SLOW_OR_NETWORK.test(t.name));
}

/**
 * The tool the call checks use: the diagnostic tool, else an echo tool, else the first
 * callable tool with no required arguments, else the first callable tool.
 */
export function probeTool(tools: readonly Tool[]): Tool | undefined {
  const callable = callableTools(tools);
  return (
    findDiagnosticTool(callable) ??
    callable.find((t) => t.name === 'echo') ??
    callable.find((t) => required(t).length === 0) ??
    callable[0]
  );
}

/** Most tools call-result-shape tries before it gives up on seeing a result. */
const RESULT_PROBES = 3;

/** The tools to call for a result, in order: probeTool, then the others needing the fewest arguments. */
export function resultProbeTools(tools: readonly Tool[]): Tool[] {
  const first = probeTool(tools);
  if (first === undefined) return [];
  const rest = callableTools(tools)
    .filter((t) => t !== first)
    .sort((a, b) => required(a).length - required(b).length);
  return [first, ...rest].slice(0, RESULT_PROBES);
}

/** The tool to call with arguments absent: one that needs none if there is one. */
export function noArgumentTool(tools: readonly Tool[]): Tool | undefined {
  const callable = callableTools(tools);
  return findDiagnosticTool(callable) ?? callable.find((t) => required(t).length === 0) ?? probeTool(tools);
}

/** An echo tool and the property its text comes back in (a required string), if there is one. */
export function echoTool(tools: readonly Tool[]): { tool: Tool; property: string } | undefined {
  for (const tool of callableTools(tools)) {
    if (!/echo/i.test(tool.name)) continue;
    const strings = required(tool).filter((name) => properties(tool)[name]?.type === 'string');
    if (strings.length === 1 && required(tool).length === 1) return { tool, property: strings[0]! };
  }
  return undefined;
}

/** Minimal arguments with the first required property left out (undefined when nothing is required). */
export function invalidArguments(tool: Tool): Record<string, unknown> | undefined {
  const [missing] = required(tool);
  if (missing === undefined) return undefined;
  const args = minimalArguments(tool);
  delete args[missing];
  return args;
}
