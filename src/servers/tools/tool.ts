import { type CallToolResult, Tool, type ToolInputSchema } from '../../protocol/mcp/index.js';

/** Which transport a session runs over. */
export type ToolTransportName = 'stdio' | 'sse' | 'http' | 'memory';

/** The session a tool call belongs to. */
export interface ToolSessionInfo {
  readonly id: string;
  readonly transport: ToolTransportName;
}

/** Live numbers of the server, for tools that report on it (the diagnostic tool). */
export interface ToolServerStats {
  readonly serverInfo: { readonly name: string; readonly version: string };
  sessionCount(): number;
  inFlightCount(): number;
  toolNames(): readonly string[];
}

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  /** Aborted when the client cancels the request or its session closes: stop and free resources. */
  readonly signal: AbortSignal;
  readonly session: ToolSessionInfo;
  readonly server: ToolServerStats;
}

/**
 * A tool of the reference server. The arguments a handler receives have been checked
 * against `inputSchema` (types of declared properties, `required`) and carry the schema's
 * defaults. A handler may answer synchronously (no promise on the hot path); a throw or a
 * rejection becomes a result with `isError: true`, MCP's way of reporting tool failures.
 */
export interface McpToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  handler(args: Record<string, unknown>, context: ToolContext): CallToolResult | Promise<CallToolResult>;
}

/**
 * Check a tool definition and return it. The spec's Tool object gives every property a
 * `type` and a `description`; a definition without them is a programming error and throws
 * here, not at the first `tools/list`.
 */
export function defineTool(definition: McpToolDefinition): McpToolDefinition {
  const listed = Tool.safeParse(toolOf(definition));
  if (!listed.success) {
    const issue = listed.error.issues[0];
    throw new TypeError(
      `defineTool(${JSON.stringify(definition.name)}): not a valid MCP Tool at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  if (definition.name === '') throw new TypeError('defineTool: the tool name must not be empty');
  if (typeof definition.handler !== 'function') {
    throw new TypeError(`defineTool(${JSON.stringify(definition.name)}): handler must be a function`);
  }
  for (const [key, property] of Object.entries(definition.inputSchema.properties ?? {})) {
    if (property.type === undefined || typeof property.description !== 'string') {
      throw new TypeError(
        `defineTool(${JSON.stringify(definition.name)}): property ${JSON.stringify(key)} needs a type and a description (spec "Tool-server objects")`,
      );
    }
  }
  return definition;
}

/** The tool as `tools/list` shows it (the handler stays on the server). */
export function toolOf(definition: McpToolDefinition): Tool {
  return { name: definition.name, description: definition.description, inputSchema: definition.inputSchema };
}
