// Messages-API stream events for the accumulator tests, one builder an event type. Each call
// makes a fresh object, so a test that spreads or edits one cannot change another's.

/**
 * A message_start of the spec's shape (3 input tokens). `extra` adds fields to the message
 * before usage, as the real API sends its stop_details and container.
 */
export const messageStart = <Extra extends Record<string, unknown>>(extra: Extra = {} as Extra) => ({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    ...extra,
    usage: { input_tokens: 3, output_tokens: 1 },
  },
});

/** A text block's content_block_start; `extra` adds fields to the block (citations). */
export const textStart = (index = 0, extra: Record<string, unknown> = {}) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'text', text: '', ...extra },
});

/** A bash tool_use block's content_block_start with an empty input. */
export const toolStart = (index = 0, id = `toolu_${index}`) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name: 'bash', input: {} },
});

/** A content_block_delta carrying a text_delta. */
export const text = (t: string, index = 0) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'text_delta', text: t },
});

/** A content_block_delta carrying an input_json_delta fragment. */
export const json = (partial_json: string, index = 0) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});

/** A content_block_delta carrying a citations_delta. */
export const cite = (citation: unknown, index = 0) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'citations_delta', citation },
});

/** A content_block_stop. */
export const stop = (index = 0) => ({ type: 'content_block_stop', index });

/** A message_delta with 9 output tokens; `extra` adds fields to its delta (stop_details, container). */
export const messageDelta = (stop_reason = 'end_turn', extra: Record<string, unknown> = {}) => ({
  type: 'message_delta',
  delta: { stop_reason, stop_sequence: null, ...extra },
  usage: { output_tokens: 9 },
});

export const messageStop = () => ({ type: 'message_stop' });

export const ping = () => ({ type: 'ping' });

/** An error event as the API sends it when overloaded mid-stream. */
export const overloadedError = () => ({
  type: 'error',
  error: { type: 'overloaded_error', message: 'Overloaded' },
});
