import { z } from 'zod';

/**
 * Content blocks of a turn ("Content blocks" in the spec). Objects are loose: the real
 * API adds fields (citations, cache_control) that a conformant peer must tolerate.
 */
export const TextBlock = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
});
export type TextBlock = z.infer<typeof TextBlock>;

export const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;

/** Not shown in the spec; the real API allows an array of text (and image) blocks. */
export const ToolResultContent = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

export const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: ToolResultContent.optional(),
  is_error: z.boolean().optional(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;

/** Block types the real API accepts in requests that the spec does not cover (image, document, thinking...). */
export const OtherBlock = z.looseObject({
  type: z.string().refine((t) => t !== 'text' && t !== 'tool_use' && t !== 'tool_result', {
    message: 'known block type with an invalid shape',
  }),
});

export const ContentBlock = z.discriminatedUnion('type', [TextBlock, ToolUseBlock, ToolResultBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/** Blocks an assistant reply carries (buffered response and stream). */
export const ResponseContentBlock = z.discriminatedUnion('type', [TextBlock, ToolUseBlock]);
export type ResponseContentBlock = z.infer<typeof ResponseContentBlock>;
