import { z } from 'zod';
import { TextBlock, ToolUseBlock } from './content-blocks.js';
import { ErrorBody } from './errors.js';
import { Message, ReceivedStopReason } from './response.js';

/** message_start carries the container: no content yet, no stop reason (null, written out or left out). */
export const MessageStartEvent = z.looseObject({
  type: z.literal('message_start'),
  message: Message.extend({
    content: z.array(z.unknown()).length(0),
    stop_reason: z.null().default(null),
    stop_sequence: z.null().default(null),
  }),
});

export const ContentBlockStartEvent = z.looseObject({
  type: z.literal('content_block_start'),
  index: z.number().int().nonnegative(),
  content_block: z.discriminatedUnion('type', [TextBlock, ToolUseBlock]),
});

export const TextDelta = z.looseObject({ type: z.literal('text_delta'), text: z.string() });
export const InputJsonDelta = z.looseObject({
  type: z.literal('input_json_delta'),
  partial_json: z.string(),
});
/**
 * The real API's delta of a cited text block (the spec does not list it): one citation
 * each, appended to the block's `citations` in arrival order.
 */
export const CitationsDelta = z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() });

export const ContentBlockDeltaEvent = z.looseObject({
  type: z.literal('content_block_delta'),
  index: z.number().int().nonnegative(),
  delta: z.discriminatedUnion('type', [TextDelta, InputJsonDelta, CitationsDelta]),
});

export const ContentBlockStopEvent = z.looseObject({
  type: z.literal('content_block_stop'),
  index: z.number().int().nonnegative(),
});

/** The stop reason may be one the spec does not list (see ReceivedStopReason). */
export const MessageDeltaEvent = z.looseObject({
  type: z.literal('message_delta'),
  delta: z.looseObject({
    stop_reason: ReceivedStopReason,
    // Left out it reads as its default, null.
    stop_sequence: z.string().nullable().default(null),
  }),
  usage: z.looseObject({ output_tokens: z.number().int().nonnegative() }),
});

export const MessageStopEvent = z.looseObject({ type: z.literal('message_stop') });
export const PingEvent = z.looseObject({ type: z.literal('ping') });
/** The real API's mid-stream error event (the spec leaves it "not shown"). */
export const ErrorEvent = ErrorBody;

export const StreamEvent = z.discriminatedUnion('type', [
  MessageStartEvent,
  ContentBlockStartEvent,
  ContentBlockDeltaEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStopEvent,
  PingEvent,
  ErrorEvent,
]);
export type StreamEvent = z.infer<typeof StreamEvent>;
export type StreamEventType = StreamEvent['type'];
export type StreamEventOf<T extends StreamEventType> = Extract<StreamEvent, { type: T }>;

export const STREAM_EVENT_TYPES = [
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
] as const satisfies readonly StreamEventType[];
