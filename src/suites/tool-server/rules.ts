import { clip } from '../../protocol/clip.js';
import { safeParseFirstIssue } from '../../protocol/first-bad-element.js';
import { JsonRpcErrorResponse, type JsonRpcResponse } from '../../protocol/jsonrpc/index.js';
import {
  CallToolResult,
  InitializeResult,
  PROTOCOL_VERSION,
  safeParseTool,
  type Tool,
} from '../../protocol/mcp/index.js';

// Pure judgments of what the server sent. Each returns the problems found (empty: conforms),
// so the checks stay thin and these can be tested without a server.

function zodProblems(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string[] {
  return error.issues.map(
    (i) => `${i.path.length > 0 ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`,
  );
}

/** initialize result: protocolVersion string, capabilities with a `tools` object, serverInfo name+version strings. */
export function initializeProblems(result: unknown): string[] {
  const parsed = InitializeResult.safeParse(result);
  if (!parsed.success) return zodProblems(parsed.error);
  const tools = parsed.data.capabilities.tools;
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    return ['capabilities.tools: a server offering tools has a `tools` object'];
  }
  return [];
}

/** The protocolVersion answered to a client that asked for 2024-11-05, when it is another one. */
export function versionProblem(
  result: unknown,
  asked: string = PROTOCOL_VERSION,
  exact = true,
): string | undefined {
  const v = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  if (v === asked) return undefined;
  // Not exact (a revision the spec does not fix): another revision is version negotiation.
  if (!exact && typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  return `answered protocolVersion ${JSON.stringify(v)}`;
}

/** tools/list result: a `tools` array, each with a string name and an inputSchema of type object. */
export function toolsListProblems(result: unknown): string[] {
  const tools = (result as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return ['tools: expected an array'];
  const problems: string[] = [];
  for (const [i, tool] of tools.entries()) {
    const parsed = safeParseTool(tool);
    if (parsed.success) continue;
    if (problems.length >= MAX_TOOL_PROBLEMS) {
      problems.push(`and more: tools[${i}] and the tools after it were not judged (${tools.length} listed)`);
      break;
    }
    const name = (tool as { name?: unknown } | null)?.name;
    for (const p of zodProblems(parsed.error)) {
      problems.push(`tools[${i}]${typeof name === 'string' ? ` (${clip(name, 80)})` : ''}.${p}`);
    }
  }
  return problems;
}

/** Malformed tools described before the rest of a list is left unjudged: a server may list millions. */
const MAX_TOOL_PROBLEMS = 20;

type Properties = Record<string, Record<string, unknown>>;

/** The properties whose schema is an object: `true`, `false` (valid JSON Schema) have no keyword to judge. */
function propertiesOf(tool: Tool): Properties {
  const props: Properties = {};
  for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
    if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) props[name] = schema;
  }
  return props;
}

/** How many properties the tools' input schemas list, and how many of them carry a default. */
export function propertyCounts(tools: readonly Tool[]): { properties: number; defaults: number } {
  const all = tools.flatMap((tool) => Object.values(propertiesOf(tool)));
  return { properties: all.length, defaults: all.filter((schema) => 'default' in schema).length };
}

/** Properties without a `type` or a `description` (spec "Tool-server objects"). */
export function propertyProblems(tools: readonly Tool[]): string[] {
  return tools.flatMap((tool) =>
    Object.entries(propertiesOf(tool)).flatMap(([name, schema]) => {
      const missing = [
        schema.type === undefined ? '`type`' : undefined,
        typeof schema.description !== 'string' ? '`description`' : undefined,
      ].filter((m) => m !== undefined);
      return missing.length === 0 ? [] : [`${tool.name}.${name} has no ${missing.join(' and no ')}`];
    }),
  );
}

/** Whether a JSON value has a JSON Schema type (or one of several). */
export function matchesType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => matchesType(t, value));
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      // No type, or one this check does not know: nothing to hold the default against.
      return true;
  }
}

/** Defaults that do not have their property's type, or are not among its enum. */
export function defaultProblems(tools: readonly Tool[]): string[] {
  return tools.flatMap((tool) =>
    Object.entries(propertiesOf(tool)).flatMap(([name, schema]) => {
      if (!('default' in schema)) return [];
      const value = schema.default;
      if (!matchesType(schema.type, value)) {
        return [
          `${tool.name}.${name}: default ${JSON.stringify(value)} is not of type ${JSON.stringify(schema.type)}`,
        ];
      }
      if (
        Array.isArray(schema.enum) &&
        !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))
      ) {
        return [`${tool.name}.${name}: default ${JSON.stringify(value)} is not one of its enum`];
      }
      return [];
    }),
  );
}

/** tools/call result: `content` an array of items with a string `type`; text items carry a string `text`. */
export function callResultProblems(result: unknown): string[] {
  const parsed = safeParseFirstIssue(CallToolResult, result);
  if (!parsed.success) return zodProblems(parsed.error);
  return parsed.data.content.flatMap((item, i) =>
    item.type === 'text' && typeof item.text !== 'string'
      ? [`content[${i}]: a text item needs a string text`]
      : [],
  );
}

/** How a server answered a call of a tool it does not offer. */
export type UnknownToolAnswer =
  | { readonly kind: 'error'; readonly names: boolean; readonly code: number; readonly message: string }
  | { readonly kind: 'is-error'; readonly names: boolean; readonly text: string }
  | { readonly kind: 'success'; readonly text: string }
  | { readonly kind: 'malformed'; readonly problems: string[] };

/** Classify the reply to tools/call of an unknown tool `name` (spec Errors: "message names the unknown tool"). */
export function unknownToolAnswer(reply: JsonRpcResponse, name: string): UnknownToolAnswer {
  // A reply with a result is a success whatever other member it has (`"error": null` too).
  if (!('result' in reply)) {
    const error = JsonRpcErrorResponse.safeParse(reply);
    if (!error.success) return { kind: 'malformed', problems: zodProblems(error.error) };
    const e = error.data.error;
    const data = e.data === undefined ? '' : JSON.stringify(e.data);
    return {
      kind: 'error',
      names: e.message.includes(name) || data.includes(name),
      code: e.code,
      message: e.message,
    };
  }
  const parsed = safeParseFirstIssue(CallToolResult, reply.result);
  if (!parsed.success) return { kind: 'malformed', problems: zodProblems(parsed.error) };
  const text = parsed.data.content
    .map((c) => (typeof c.text === 'string' ? c.text : JSON.stringify(c)))
    .join('\n');
  if (parsed.data.isError === true) return { kind: 'is-error', names: text.includes(name), text };
  return { kind: 'success', text };
}

/** What kind of answer a call got, for comparing two calls: result, isError result, or an error code. */
export function answerKind(reply: JsonRpcResponse): string {
  if (!('result' in reply)) {
    const code = (reply as { error?: { code?: unknown } | null }).error?.code;
    return `JSON-RPC error ${typeof code === 'number' ? code : JSON.stringify(code)}`;
  }
  return (reply.result as { isError?: unknown } | null)?.isError === true
    ? 'a result with isError: true'
    : 'a result';
}

/** What a reply says, its id and jsonrpc member left out: two answers to different requests compared. */
export function replyText(reply: JsonRpcResponse): string {
  const { id: _id, jsonrpc: _jsonrpc, ...said } = reply as Record<string, unknown>;
  return JSON.stringify(said);
}

/** Whether one received frame is a keep-alive: a comment, or a JSON-RPC ping request as a message event. */
export function isKeepAlive(frame: { comment?: boolean; event?: string | undefined; data: string }): boolean {
  if (frame.comment) return true;
  if ((frame.event ?? 'message') !== 'message') return false;
  try {
    const v = JSON.parse(frame.data) as { method?: unknown; id?: unknown };
    return v.method === 'ping' && v.id !== undefined;
  } catch {
    return false;
  }
}

/**
 * Keep-alive on an idle stream (spec "Tool-server SSE events", Limits: every 15 s): within
 * [from, to] (ms on the stream's clock) no gap without a keep-alive may exceed interval +
 * tolerance, the first gap counted from `from`. Returns the longest gap when it does.
 */
export function keepAliveGap(
  frames: readonly { atMs: number; comment?: boolean; event?: string | undefined; data: string }[],
  window: { fromMs: number; toMs: number },
  limit: { intervalMs: number; toleranceMs: number },
): { gapMs: number; afterMs: number } | undefined {
  const beats = frames.filter((f) => isKeepAlive(f) && f.atMs >= window.fromMs && f.atMs <= window.toMs);
  let previous = window.fromMs;
  let worst = { gapMs: 0, afterMs: previous };
  for (const f of [...beats.map((b) => b.atMs), window.toMs]) {
    if (f - previous > worst.gapMs) worst = { gapMs: f - previous, afterMs: previous };
    previous = f;
  }
  return worst.gapMs > limit.intervalMs + limit.toleranceMs ? worst : undefined;
}

/**
 * When the keep-alive verdict on a watch of [from, to] is settled before `to`: at the first
 * keep-alive that ends a gap over the limit (a failure, whatever follows), or else at the first
 * that ends a whole interval between two keep-alives in the watch, every gap up to it within the
 * limit (a pass). A single early beat settles nothing: a server that sent one comment and no
 * more, or beat every 30 s on a phase that put one beat early in the watch, passed so. A server
 * beating every 15 s is judged at its second beat.
 */
export function keepAliveSettledAt(
  frames: readonly { atMs: number; comment?: boolean; event?: string | undefined; data: string }[],
  window: { fromMs: number; toMs: number },
  limit: { intervalMs: number; toleranceMs: number },
): number | undefined {
  let previous = window.fromMs;
  let beats = 0;
  for (const f of frames) {
    if (f.atMs < window.fromMs || f.atMs > window.toMs || !isKeepAlive(f)) continue;
    beats += 1;
    if (f.atMs - previous > limit.intervalMs + limit.toleranceMs || beats >= 2) return f.atMs;
    previous = f.atMs;
  }
  return undefined;
}

/**
 * The ids one received JSON-RPC message answers: a reply's own, or those of the replies inside
 * an array (a batch response, JSON-RPC 2.0 "Batch"). Requests, notifications, replies with a
 * null id and anything else answer none.
 */
export function answeredIds(value: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  const take = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return;
    const r = v as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (r.jsonrpc !== '2.0' || !('result' in r || 'error' in r)) return;
    if (typeof r.id === 'string' || typeof r.id === 'number') ids.push(r.id);
  };
  if (Array.isArray(value)) for (const item of value) take(item);
  else take(value);
  return ids;
}

/** How deep structuredContentProblems follows nested objects and arrays. */
const MAX_SCHEMA_DEPTH = 32;

/** Most problems structuredContentProblems lists: enough to show, and a value of 130,000 wrong items costs no more. */
export const MAX_CONTENT_PROBLEMS = 20;

/**
 * JSON Schema's equality of instances: the same type and value, arrays item by item, objects
 * member by member in any order (JSON.stringify told {"a":1,"b":2} from {"b":2,"a":1}).
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  // Past the depth judged, not judged: taken as equal, so no value fails for it.
  if (depth > MAX_SCHEMA_DEPTH) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameJson(item, b[i], depth + 1))
    );
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return (
    keys.length === Object.keys(y).length &&
    keys.every((k) => Object.hasOwn(y, k) && sameJson(x[k], y[k], depth + 1))
  );
}

/**
 * Where `value` breaks `schema` (MCP 2025-06-18 and later: "Servers MUST provide structured
 * results that conform to this schema"), by the keywords that mean the same in every JSON
 * Schema dialect: `type`, `enum`, `const`, `required`, `properties` and `items`, followed into
 * nested objects and arrays. Other keywords (formats, patterns, combinators, $ref) are not
 * judged: a value they would refuse passes here, never the other way round. At most
 * MAX_CONTENT_PROBLEMS are listed; when there are more, a last entry says so.
 */
export function structuredContentProblems(
  schema: unknown,
  value: unknown,
  path = 'structuredContent',
): string[] {
  const out: string[] = [];
  const more = contentProblems(schema, value, path, 0, out);
  if (more) out.push(`and more (only the first ${MAX_CONTENT_PROBLEMS} problems are listed)`);
  return out;
}

/** Adds the problems of `value` to `out`, up to the cap; true when there were more than it holds. */
function contentProblems(
  schema: unknown,
  value: unknown,
  path: string,
  depth: number,
  out: string[],
): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  if (depth >= MAX_SCHEMA_DEPTH) return false;
  const add = (problem: string): boolean => {
    if (out.length >= MAX_CONTENT_PROBLEMS) return true;
    out.push(problem);
    return false;
  };
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined && !matchesType(s.type, value)) {
    return add(`${path}: ${JSON.stringify(value)?.slice(0, 80)} is not of type ${JSON.stringify(s.type)}`);
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => sameJson(e, value))) {
    return add(`${path}: ${JSON.stringify(value)?.slice(0, 80)} is not one of its enum`);
  }
  if ('const' in s && !sameJson(s.const, value)) {
    return add(`${path}: ${JSON.stringify(value)?.slice(0, 80)} is not its const ${JSON.stringify(s.const)}`);
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    if (Array.isArray(s.required)) {
      for (const name of s.required)
        if (
          typeof name === 'string' &&
          !Object.hasOwn(object, name) &&
          add(`${path}.${name}: required, absent`)
        )
          return true;
    }
    if (typeof s.properties === 'object' && s.properties !== null) {
      for (const [name, sub] of Object.entries(s.properties as Record<string, unknown>)) {
        // Own keys only: an absent optional "toString" is absent, not Object's method.
        if (
          Object.hasOwn(object, name) &&
          contentProblems(sub, object[name], `${path}.${name}`, depth + 1, out)
        )
          return true;
      }
    }
  }
  if (Array.isArray(value) && typeof s.items === 'object' && s.items !== null && !Array.isArray(s.items)) {
    for (let i = 0; i < value.length; i++)
      if (contentProblems(s.items, value[i], `${path}[${i}]`, depth + 1, out)) return true;
  }
  return false;
}

/**
 * Tool names against the guidance of MCP 2025-11-25 ("Tool Names"): 1 to 128 characters,
 * only A-Z, a-z, 0-9, `_`, `-` and `.`, unique within the server (all SHOULDs).
 */
export function toolNameProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (name.length < 1 || name.length > 128)
      problems.push(`${JSON.stringify(name.slice(0, 140))} has ${name.length} characters (1 to 128)`);
    else if (!/^[A-Za-z0-9_.-]+$/.test(name))
      problems.push(`${JSON.stringify(name)} has characters other than A-Z, a-z, 0-9, _, - and .`);
    if (seen.has(name)) problems.push(`${JSON.stringify(name)} is listed more than once`);
    seen.add(name);
  }
  return problems;
}
