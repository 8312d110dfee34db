import { describe, expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import { streamChecks } from '../../../src/suites/messages-service/checks/stream.js';
import type { StreamedReply } from '../../../src/suites/messages-service/index.js';
import { MESSAGE_START, streamReplyOf, streamsCtx } from './stream-replies.js';

const check = streamChecks.find((c) => c.id === 'messages-service.stream.reduces-to-message')!;

/** A 200 event stream of a tool_use reply whose input stops mid-JSON, ended by `stopReason`. */
function toolStream(partialJson: string, stopReason: string): StreamedReply {
  const events = [
    MESSAGE_START,
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} },
    },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: partialJson } },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 9 },
    },
    { type: 'message_stop' },
  ];
  return streamReplyOf(events);
}

const ctxOf = streamsCtx;
const env = { signal: new AbortController().signal } as never;

describe('messages-service.stream.reduces-to-message', () => {
  test('streams that each stop mid tool input by their stop reason break no rule, but judge nothing: not exercised', async () => {
    const cut = toolStream('{"command": "ec', 'max_tokens');
    await expect(check.run(ctxOf(cut, toolStream('{"comm', 'refusal')), env)).rejects.toBeInstanceOf(
      NotExercised,
    );
  });

  test('one whole stream beside a cut one is judged and passes', async () => {
    const whole = toolStream('{"command": "ls"}', 'tool_use');
    await expect(check.run(ctxOf(whole, toolStream('{"comm', 'max_tokens')), env)).resolves.toBeUndefined();
  });

  test('a stream stopped with its output whole (tool_use) whose input is not JSON fails', async () => {
    const broken = toolStream('{"command": "ls"', 'tool_use');
    await expect(check.run(ctxOf(broken, broken), env)).rejects.toThrow(/does not fold into a message/);
  });
});
