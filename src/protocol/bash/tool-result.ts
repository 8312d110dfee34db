import { z } from 'zod';
import { BashToolInput } from '../messages/tools.js';

/** A bash tool_use block as the runner contract feeds it, one per JSON line (the target contract in the README, runner). */
export const BashToolUse = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.literal('bash'),
  input: BashToolInput,
});
export type BashToolUse = z.infer<typeof BashToolUse>;

/** Runner contract 8: the result block, one JSON line per tool_use, in order. */
export const BashToolResult = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});
export type BashToolResult = z.infer<typeof BashToolResult>;

/** A text block: the long form of a tool_result's text content. */
const TextContentBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

/**
 * A result line as a runner may write it, read into the BashToolResult it means. The real
 * API's tool_result also takes its content as text blocks (the spec: content "when it is not
 * a string: not shown") and leaves `is_error` out when false; both are the same result.
 */
export const BashToolResultLine = z
  .looseObject({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(TextContentBlock)]),
    is_error: z.boolean().default(false),
  })
  .transform(
    ({ tool_use_id, content, is_error }): BashToolResult => ({
      type: 'tool_result',
      tool_use_id,
      content: typeof content === 'string' ? content : content.map((b) => b.text).join(''),
      is_error,
    }),
  );
