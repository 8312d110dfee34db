import { decodeFrames, encodeEvent } from '../../../src/protocol/sse/index.js';
import type { MessagesServiceCtx, StreamedReply } from '../../../src/suites/messages-service/index.js';
import { messageStart } from '../../protocol/messages/events.js';

/** A 200 event stream carrying `events` in order, as the stream checks receive it. */
export function streamReplyOf(events: readonly { type: string }[]): StreamedReply {
  const text = events.map((e) => encodeEvent(e)).join('');
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    frames: decodeFrames([text]).frames,
    unterminated: '',
    invalidLines: [],
    text,
    aborted: false,
    readError: undefined,
  };
}

/** A suite context whose shared text and tool streams are the given replies. */
export const streamsCtx = (text: StreamedReply, tool: StreamedReply) =>
  ({
    shared: { textStreamed: async () => text, toolStreamed: async () => tool },
  }) as unknown as MessagesServiceCtx;

/** A message_start of the spec's shape: 3 input tokens. */
export const MESSAGE_START = messageStart();

/** A buffered reply of the spec's shape: one text block, end_turn. */
export const TEXT_MESSAGE = {
  ...MESSAGE_START.message,
  content: [{ type: 'text', text: 'hi' }],
  stop_reason: 'end_turn',
};
