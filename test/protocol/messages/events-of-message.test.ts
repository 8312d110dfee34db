import { expect, test } from 'vitest';
import { accumulate, eventsOfMessage, type Message } from '../../../src/protocol/messages/index.js';

test('streaming a message and reducing the stream gives the message back', () => {
  const message: Message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [
      { type: 'text', text: 'héllo 👋' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls -la' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 20 },
  };
  const events = eventsOfMessage(message, [[1, 3], [2, 5, 9]]);
  expect(events.filter((e) => e.type === 'content_block_delta')).toHaveLength(7);
  expect(accumulate(events)).toEqual(message);
});
