import { z } from 'zod';

/** Both dated type strings of the built-in shell tool ("Versioning"). */
export const BASH_TOOL_TYPES = ['bash_20250124', 'bash_20241022'] as const;

export const BashToolDefinition = z.looseObject({
  type: z.enum(BASH_TOOL_TYPES),
  name: z.literal('bash'),
});
export type BashToolDefinition = z.infer<typeof BashToolDefinition>;

/**
 * Not shown in the spec; this is the real API's custom tool shape. `type`, `properties` and
 * `required` may be null: the API's published schema (the official SDK's types are generated
 * from it: `type?: 'custom' | null`, `properties?: unknown | null`, `required?: Array<string> |
 * null`) allows it, and clients that write unset fields as null send it.
 */
export const CustomToolDefinition = z.looseObject({
  type: z.literal('custom').nullish(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'tool name must match ^[a-zA-Z0-9_-]{1,128}$'),
  description: z.string().optional(),
  input_schema: z.looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.unknown()).nullish(),
    required: z.array(z.string()).nullish(),
  }),
});
export type CustomToolDefinition = z.infer<typeof CustomToolDefinition>;

/**
 * Not shown in the spec: a tool the real API defines by its type string rather than a
 * schema, such as web_search_20250305, text_editor_20250429 or code_execution_20250522 (and
 * types it adds later). The real API accepts them beside bash, so an agent that offers one is
 * not refused. `custom`, every `bash` type and the name `bash` keep the shapes above: the real
 * API refuses a bash version it does not know, and a tool named bash of another type.
 */
export const TypedToolDefinition = z
  .looseObject({
    type: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/, 'a tool type is a lower-case identifier such as web_search_20250305')
      .refine((t) => t !== 'custom' && !t.startsWith('bash'), {
        message: `expected one of ${BASH_TOOL_TYPES.join(', ')} for the bash tool, or custom`,
      }),
    name: z.string().min(1).optional(),
  })
  .refine((tool) => tool.name !== 'bash', {
    message: `a tool named bash has type ${BASH_TOOL_TYPES.join(' or ')}`,
    path: ['type'],
  });
export type TypedToolDefinition = z.infer<typeof TypedToolDefinition>;

export const ToolDefinition = z.union([BashToolDefinition, CustomToolDefinition, TypedToolDefinition]);

/**
 * The one shape of ToolDefinition a value is meant to have, by its type and name, so a refusal
 * names what is wrong in that shape rather than why it is none of the others.
 */
export function intendedToolShape(tool: unknown): z.ZodType {
  const { type, name } = (tool ?? {}) as { type?: unknown; name?: unknown };
  if (type === undefined || type === null || type === 'custom') return CustomToolDefinition;
  if (name === 'bash' || (typeof type === 'string' && type.startsWith('bash'))) return BashToolDefinition;
  return TypedToolDefinition;
}
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
