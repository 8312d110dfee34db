import { z } from 'zod';
import { ResponseContentBlock } from './content-blocks.js';

export const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use'] as const;
export const StopReason = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReason>;

export const Usage = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

/** Buffered message response ("Message response (buffered)"). */
export const Message = z.looseObject({
  id: z.string().min(1),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(ResponseContentBlock),
  stop_reason: StopReason.nullable(),
  stop_sequence: z.string().nullable(),
  usage: Usage,
});
export type Message = z.infer<typeof Message>;
