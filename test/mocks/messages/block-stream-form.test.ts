import { describe, expect, test } from 'vitest';
import { blockStreamForm } from '../../../src/mocks/messages/block-stream-form.js';
import { framesOfMessage } from '../../../src/mocks/messages/source-frames.js';
import { type DeltaSplits, eventsOfMessage } from '../../../src/protocol/messages/index.js';
import { SAMPLE, WITH_OTHER_BLOCKS } from './helpers.js';

describe('blockStreamForm', () => {
  test('text and tool_use blocks stream as eventsOfMessage streams them', () => {
    const splits: DeltaSplits = SAMPLE.content.map(() => [2, 5]);
    const frames = [...framesOfMessage(SAMPLE, splits)].map((f) => ('data' in f ? JSON.parse(f.data) : f));
    expect(frames).toEqual(eventsOfMessage(SAMPLE, splits));
  });

  test('a thinking block: empty thinking and signature in the start, thinking_delta pieces, then one signature_delta', () => {
    const form = blockStreamForm({ type: 'thinking', thinking: 'abc', signature: 'sig' });
    expect(form.start).toEqual({ type: 'thinking', thinking: '', signature: '' });
    expect(form.deltas).toEqual({ payload: 'abc', typeAndField: '"thinking_delta","thinking"' });
    expect(form.last).toEqual({ type: 'signature_delta', signature: 'sig' });
    // Without a signature, none is invented.
    const unsigned = blockStreamForm({ type: 'thinking', thinking: 'abc' });
    expect(unsigned.start).toEqual({ type: 'thinking', thinking: '' });
    expect(unsigned.last).toBeUndefined();
  });

  test('a block with a tool input streams it as input_json_delta; any other block travels whole in its start', () => {
    const tool = blockStreamForm({ type: 'server_tool_use', id: 's', name: 'n', input: { a: 1 } });
    expect(tool.start).toEqual({ type: 'server_tool_use', id: 's', name: 'n', input: {} });
    expect(tool.deltas).toEqual({ payload: '{"a":1}', typeAndField: '"input_json_delta","partial_json"' });
    const whole = { type: 'redacted_thinking', data: 'x' };
    expect(blockStreamForm(whole)).toEqual({ start: whole });
    // A thinking block whose thinking is not text is not guessed at either.
    expect(blockStreamForm({ type: 'thinking', thinking: 7 })).toEqual({
      start: { type: 'thinking', thinking: 7 },
    });
  });

  test("the frames of a message with other blocks: joining each block's deltas onto its start gives the block back", () => {
    const splits: DeltaSplits = [[3, 9], undefined, [4]];
    const events = [...framesOfMessage(WITH_OTHER_BLOCKS, splits)].map((f) =>
      JSON.parse((f as { data: string }).data),
    );
    expect(events.map((e) => e.delta?.type ?? e.type)).toEqual([
      'message_start',
      'content_block_start',
      'thinking_delta',
      'thinking_delta',
      'thinking_delta',
      'signature_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_stop',
      'content_block_start',
      'input_json_delta',
      'input_json_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_stop',
      'content_block_start',
      'text_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const blocks: Record<string, unknown>[] = [];
    const json: string[] = [];
    for (const e of events) {
      if (e.type === 'content_block_start') {
        blocks[e.index] = { ...e.content_block };
        json[e.index] = '';
      }
      if (e.type !== 'content_block_delta') continue;
      const block = blocks[e.index]!;
      if (e.delta.type === 'thinking_delta') block.thinking += e.delta.thinking;
      if (e.delta.type === 'signature_delta') block.signature += e.delta.signature;
      if (e.delta.type === 'text_delta') block.text += e.delta.text;
      if (e.delta.type === 'input_json_delta') json[e.index] += e.delta.partial_json;
    }
    json.forEach((text, i) => {
      if (text !== '') blocks[i]!.input = JSON.parse(text);
    });
    expect(blocks).toEqual(WITH_OTHER_BLOCKS.content);
  });
});
