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
