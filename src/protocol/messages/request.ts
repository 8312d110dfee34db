import { z } from 'zod';
import { ContentBlock, OtherBlock } from './content-blocks.js';
import { ToolDefinition } from './tools.js';

export const Role = z.enum(['user', 'assistant']);
export type Role = z.infer<typeof Role>;

/** A turn; empty content is the conversation's rule (allowed in a final assistant turn), not the shape's. */
export const Turn = z.looseObject({
  role: Role,
  content: z.union([z.string(), z.array(z.union([ContentBlock, OtherBlock]))]),
});
export type Turn = z.infer<typeof Turn>;

/**
 * Message request body. The spec lists model, max_tokens, messages, tools and stream;
 * the optional parameters it leaves "not shown" are typed as the real API has them.
 */
export const MessageRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(Turn).min(1),
  tools: z.array(ToolDefinition).optional(),
  stream: z.boolean().optional(),
  system: z
    .union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))])
    .optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().nonnegative().optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
  tool_choice: z.looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']) }).optional(),
});
export type MessageRequest = z.infer<typeof MessageRequest>;
