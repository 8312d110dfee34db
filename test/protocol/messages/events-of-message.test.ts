import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  accumulate,
  eventsOfMessage,
  inputJsonOf,
  type Message,
  StreamEvent,
  splitAt,
} from '../../../src/protocol/messages/index.js';
import { arbDeltaSplits, arbMessage } from '../../../src/suites/arbitraries/messages.js';

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

describe('eventsOfMessage', () => {
  test('streaming a message and reducing the stream gives the message back', () => {
    const events = eventsOfMessage(message, [
      [1, 3],
      [2, 5, 9],
    ]);
    expect(events.filter((e) => e.type === 'content_block_delta')).toHaveLength(7);
    expect(accumulate(events)).toEqual(message);
  });

  test('the sequence follows Events rule 1: start, per block start/deltas/stop, message_delta, message_stop', () => {
    const types = eventsOfMessage(message).map((e) => ('index' in e ? `${e.type}:${e.index}` : e.type));
    expect(types).toEqual([
      'message_start',
      'content_block_start:0',
      'content_block_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1',
      'content_block_stop:1',
      'message_delta',
      'message_stop',
    ]);
  });

  test('message_start carries the container with no content and a null stop reason; message_delta the stop reason', () => {
    const events = eventsOfMessage(message);
    expect(events[0]).toMatchObject({
      message: { content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10 } },
    });
    expect(events.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 20 },
    });
  });

  test('extra fields of a text block travel in its content_block_start', () => {
    const cited: Message = {
      ...message,
      content: [{ type: 'text', text: 'a', citations: [] }],
      stop_reason: 'end_turn',
    };
    expect(eventsOfMessage(cited)[1]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '', citations: [] },
    });
    expect(accumulate(eventsOfMessage(cited))).toEqual(cited);
  });

  test("a reply's stop_details and container are null in message_start and sent in message_delta (the real API's)", () => {
    const refused: Message = {
      ...message,
      content: [{ type: 'text', text: 'no' }],
      stop_reason: 'refusal',
      stop_details: { type: 'refusal', category: 'cyber', explanation: null },
      container: { id: 'container_1', expires_at: '2030-01-01T00:00:00Z', skills: null },
    };
    const events = eventsOfMessage(refused);
    expect(events[0]).toMatchObject({ message: { stop_details: null, container: null, stop_reason: null } });
    expect(events.at(-2)).toEqual({
      type: 'message_delta',
      delta: {
        stop_reason: 'refusal',
        stop_sequence: null,
        stop_details: refused.stop_details,
        container: refused.container,
      },
      usage: { output_tokens: 20 },
    });
    expect(accumulate(events)).toEqual(refused);
    // A reply without them streams without them.
    expect(eventsOfMessage(message).at(-2)).not.toHaveProperty('delta.stop_details');
  });

  test("a text block's citations are sent as citations_delta after its text, its start holding an empty list", () => {
    const a = {
      type: 'char_location',
      cited_text: 'h',
      document_index: 0,
      start_char_index: 0,
      end_char_index: 1,
    };
    const b = { ...a, cited_text: 'é', start_char_index: 1, end_char_index: 2 };
    const cited: Message = { ...message, content: [{ type: 'text', text: 'héllo', citations: [a, b] }] };
    const events = eventsOfMessage(cited, [[2]]);
    expect(events.slice(1, 6)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: [] } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hé' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'llo' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: a } },
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: b } },
    ]);
    for (const event of events) expect(StreamEvent.safeParse(event).success).toBe(true);
    expect(accumulate(events)).toEqual(cited);
  });

  test('splitAt ignores offsets outside the string, repeated or unsorted', () => {
    expect(splitAt('abcdef', [4, 0, 2, 2, 9, -1, 6])).toEqual(['ab', 'cd', 'ef']);
    expect(splitAt('', [1])).toEqual(['']);
  });
});

describe('properties', () => {
  test('every event is a valid stream event, and no delta carries token counts (Events rule 2)', () => {
    const arbCase = arbMessage().chain((m) => arbDeltaSplits(m).map((splits) => ({ m, splits })));
    fc.assert(
      fc.property(arbCase, ({ m, splits }) => {
        for (const event of eventsOfMessage(m, splits)) {
          expect(StreamEvent.safeParse(event).success).toBe(true);
          if (event.type === 'content_block_delta') expect(JSON.stringify(event)).not.toMatch(/tokens/);
        }
      }),
      { numRuns: 200, seed: 51 },
    );
  });

  test('the partial_json fragments of a tool block concatenate to the JSON of its input', () => {
    const arbCase = arbMessage().chain((m) => arbDeltaSplits(m).map((splits) => ({ m, splits })));
    fc.assert(
      fc.property(arbCase, ({ m, splits }) => {
        const events = eventsOfMessage(m, splits);
        m.content.forEach((block, index) => {
          if (block.type !== 'tool_use') return;
          const json = events
            .flatMap((e) => (e.type === 'content_block_delta' && e.index === index ? [e.delta] : []))
            .map((d) => (d.type === 'input_json_delta' ? d.partial_json : ''))
            .join('');
          expect(json).toBe(inputJsonOf(block.input));
        });
      }),
      { numRuns: 200, seed: 52 },
    );
  });
});
