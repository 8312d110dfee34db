import { z } from 'zod';
import { safeParseFirstIssue } from '../first-bad-element.js';

/**
 * One property of a tool's input schema. The spec asks for `type` and `description` and
 * allows `default`; JSON Schema allows much more, which is kept.
 */
export const ToolInputProperty = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
});
export type ToolInputProperty = z.infer<typeof ToolInputProperty>;

export const ToolInputSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), ToolInputProperty).optional(),
  required: z.array(z.string()).optional(),
});
export type ToolInputSchema = z.infer<typeof ToolInputSchema>;

/** A tool as a tool server lists it (spec "Tool-server objects"). */
export const Tool = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: ToolInputSchema,
});
export type Tool = z.infer<typeof Tool>;

/**
 * `item` parsed as a Tool, with at most a few issues: arrays stop at their first bad element
 * (safeParseFirstIssue), and the input schema's properties, a record (which zod's early stop does not
 * cover), are judged one at a time first, the tool parsed with only the first bad one.
 */
export function safeParseTool(item: unknown): z.ZodSafeParseResult<Tool> {
  return safeParseFirstIssue(Tool, withFirstBadProperty(item));
}

function withFirstBadProperty(item: unknown): unknown {
  const schema = (item as { inputSchema?: unknown } | null | undefined)?.inputSchema;
  const properties = (schema as { properties?: unknown } | null | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return item;
  for (const [name, property] of Object.entries(properties)) {
    if (safeParseFirstIssue(ToolInputProperty, property).success) continue;
    // A computed key is an own property even when it is `__proto__`.
    return { ...(item as object), inputSchema: { ...(schema as object), properties: { [name]: property } } };
  }
  return item;
}

export const ToolsListResult = z.looseObject({
  tools: z.array(Tool),
  nextCursor: z.string().optional(),
});
export type ToolsListResult = z.infer<typeof ToolsListResult>;

export const ToolsCallParams = z.looseObject({
  name: z.string(),
  /** Absent arguments count as empty (spec "Tool server, SSE transport"). */
  arguments: z.record(z.string(), z.unknown()).optional(),
});
export type ToolsCallParams = z.infer<typeof ToolsCallParams>;

export const TextContent = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
});
export type TextContent = z.infer<typeof TextContent>;

/**
 * A content item of a call result. The spec shows only text; MCP also has image and
 * embedded resources, which a client must tolerate.
 */
export const ContentItem = z.looseObject({ type: z.string() });
export type ContentItem = z.infer<typeof ContentItem>;

/** `isError` is MCP's flag for a tool that failed; the spec does not show it. */
export const CallToolResult = z.looseObject({
  content: z.array(ContentItem),
  isError: z.boolean().optional(),
});
export type CallToolResult = z.infer<typeof CallToolResult>;

export function textResult(text: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: 'text', text }], isError: true }
    : { content: [{ type: 'text', text }] };
}

/** The text of every text item of a result, joined by newlines. */
export function resultText(result: CallToolResult): string {
  return result.content
    .filter((c): c is TextContent => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('\n');
}
