import { z } from 'zod';

/** Both dated type strings of the built-in shell tool ("Versioning"). */
export const BASH_TOOL_TYPES = ['bash_20250124', 'bash_20241022'] as const;

export const BashToolDefinition = z.looseObject({
  type: z.enum(BASH_TOOL_TYPES),
  name: z.literal('bash'),
});
export type BashToolDefinition = z.infer<typeof BashToolDefinition>;

/** Not shown in the spec; this is the real API's custom tool shape. */
export const CustomToolDefinition = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'tool name must match ^[a-zA-Z0-9_-]{1,128}$'),
  description: z.string().optional(),
  input_schema: z.looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.unknown()).optional(),
    required: z.array(z.string()).optional(),
  }),
});
export type CustomToolDefinition = z.infer<typeof CustomToolDefinition>;

export const ToolDefinition = z.union([BashToolDefinition, CustomToolDefinition]);
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** `input` of a tool_use block for the bash tool. */
export const BashToolInput = z.looseObject({
  command: z.string(),
  restart: z.boolean().optional(),
});
export type BashToolInput = z.infer<typeof BashToolInput>;

export function isBashTool(tool: ToolDefinition): tool is BashToolDefinition {
  return tool.name === 'bash' && typeof tool.type === 'string' && tool.type.startsWith('bash_');
}
