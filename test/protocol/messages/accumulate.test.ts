import { describe, expect, test } from 'vitest';
import { accumulate, StreamProtocolError } from '../../../src/protocol/messages/index.js';

const start = {
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  },
};

describe('stream reducer', () => {
  test('partial_json fragments of one index are concatenated and parsed once at content_block_stop', () => {
    const message = accumulate([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"comm' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'and":"ls"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]);
    expect(message.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toEqual({ input_tokens: 3, output_tokens: 9 });
  });

  test('an event before message_start is an order violation naming what arrived', () => {
    expect(() => accumulate([{ type: 'content_block_stop', index: 0 }])).toThrow(
      new StreamProtocolError('order', 'message_start', 'content_block_stop (index 0)', 0),
    );
  });

  test('a stream without message_stop is truncated', () => {
    expect(() => accumulate([start])).toThrow(/truncated/);
  });
});
