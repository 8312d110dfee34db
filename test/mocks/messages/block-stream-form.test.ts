import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { rebuiltBlocks } from '../../../src/fuzz/oracles/rebuilt-blocks.js';
import { arbOtherBlock } from '../../../src/fuzz/surfaces/mock-scenario-replies.js';
import { blockStreamForm } from '../../../src/mocks/messages/block-stream-form.js';
import { framesOfMessage, messageBatches } from '../../../src/mocks/messages/source-frames.js';
import {
  type DeltaSplits,
  eventsOfMessage,
  Message,
  MessageShape,
  StreamAccumulator,
} from '../../../src/protocol/messages/index.js';
import { createFrameDecoder } from '../../../src/protocol/sse/index.js';
import { arbMessage } from '../../../src/suites/arbitraries/messages.js';
import { SAMPLE, WITH_OTHER_BLOCKS } from './helpers.js';

/** A decoded stream event, as far as the test reads it. */
type Streamed = Record<string, unknown> & {
  readonly type: string;
  readonly event?: string | undefined;
  readonly delta?: { readonly type: string };
};

/** A message with other blocks mixed in, and cuts for each block (any numbers: out of range and unordered too). */
const arbMixedCase = arbMessage({ maxBlocks: 3 }).chain((m) =>
  fc.array(fc.tuple(fc.nat({ max: 3 }), arbOtherBlock), { maxLength: 3 }).chain((inserts) => {
    const content: Record<string, unknown>[] = [...m.content];
    for (const [at, block] of inserts) content.splice(Math.min(at, content.length), 0, block);
    const message = { ...m, content } as unknown as Message;
    const splits = fc.tuple(
      ...content.map(() =>
        fc.option(fc.array(fc.integer({ min: -2, max: 40 }), { maxLength: 6 }), { nil: undefined }),
      ),
    );
    return fc.record({ message: fc.constant(message), splits, per: fc.integer({ min: 1, max: 5 }) });
  }),
);

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
    expect(form.after).toEqual([{ type: 'signature_delta', signature: 'sig' }]);
    // Without a signature, none is invented.
    const unsigned = blockStreamForm({ type: 'thinking', thinking: 'abc' });
    expect(unsigned.start).toEqual({ type: 'thinking', thinking: '' });
    expect(unsigned.after).toBeUndefined();
  });

  test("a text block's citations: an empty list in the start, then one citations_delta each after the text", () => {
    const a = { type: 'char_location', cited_text: 'a' };
    const b = { type: 'page_location', cited_text: 'b' };
    const form = blockStreamForm({ type: 'text', text: 'ab', citations: [a, b] });
    expect(form.start).toEqual({ type: 'text', text: '', citations: [] });
    expect(form.deltas).toEqual({ payload: 'ab', typeAndField: '"text_delta","text"' });
    expect(form.after).toEqual([
      { type: 'citations_delta', citation: a },
      { type: 'citations_delta', citation: b },
    ]);
    // Citations that are not a list (the real API's null) travel as they are, with no delta.
    const uncited = blockStreamForm({ type: 'text', text: 'ab', citations: null });
    expect(uncited.start).toEqual({ type: 'text', text: '', citations: null });
    expect(uncited.after).toBeUndefined();
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
    const events = [...framesOfMessage(WITH_OTHER_BLOCKS, splits)].map(
      (f) => JSON.parse((f as { data: string }).data) as Streamed,
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
    expect(rebuiltBlocks(events)).toEqual(WITH_OTHER_BLOCKS.content);
  });

  test('the fuzz oracle rebuilds a cited text block from its frames, as the official SDK does', () => {
    const citation = {
      type: 'char_location',
      cited_text: 'x',
      document_index: 0,
      start_char_index: 0,
      end_char_index: 1,
    };
    const cited = {
      ...WITH_OTHER_BLOCKS,
      content: [{ type: 'text' as const, text: 'hello', citations: [citation, citation] }],
    };
    const events = [...framesOfMessage(cited, [[2]])].map(
      (f) => JSON.parse((f as { data: string }).data) as Streamed,
    );
    expect(events.filter((e) => e.delta?.type === 'citations_delta')).toHaveLength(2);
    expect(rebuiltBlocks(events)).toEqual(cited.content);
  });

  test('property: any mix of blocks streams to events that rebuild every block, and a reader that skips the others gets Message', () => {
    fc.assert(
      fc.property(arbMixedCase, ({ message, splits, per }) => {
        expect(MessageShape.safeParse(message).success).toBe(true);
        const bytes = Buffer.concat(
          [...messageBatches(message, splits, '\n', per)].map((b) => Buffer.from(b.bytes)),
        );
        const events: Streamed[] = [];
        const decoder = createFrameDecoder({
          onFrame: (f) => events.push({ event: f.event, ...JSON.parse(f.data) }),
        });
        decoder.feed(bytes);
        expect(decoder.end()).toBe('');
        // Every frame's event name is its JSON type (Events), and the order is the spec's.
        for (const e of events) expect(e.event).toBe(e.type);
        expect(rebuiltBlocks(events)).toEqual(message.content);
        const accumulator = new StreamAccumulator();
        for (const { event: _, ...e } of events) accumulator.push(e);
        expect(accumulator.finish()).toEqual(Message.parse(message));
      }),
      { numRuns: 300, seed: 1202 },
    );
  });
});
