import { describe, expect, test } from 'vitest';
import { accumulate, StreamAccumulator } from '../../../src/protocol/messages/index.js';
import {
  cite,
  json,
  messageDelta,
  messageStart,
  messageStop,
  stop,
  text,
  textStart,
  toolStart,
} from './events.js';

// What the real API streams beyond the spec's fields, folded as the official SDK 1.12 folds
// it (lib/MessageStream.js): citations from citations_delta, stop_details and container from
// message_delta's delta.

const start = messageStart({ stop_details: null, container: null });
const CITE_A = {
  type: 'char_location',
  cited_text: 'grass is green',
  document_index: 0,
  document_title: 'facts',
  start_char_index: 0,
  end_char_index: 14,
};
const CITE_B = { ...CITE_A, cited_text: 'sky is blue', start_char_index: 15, end_char_index: 26 };
const STOP_DETAILS = { type: 'refusal', category: 'cyber', explanation: 'not this one' };
const CONTAINER = { id: 'container_011', expires_at: '2030-01-01T00:00:00Z', skills: null };

describe("citations_delta: a text block's citations, in arrival order", () => {
  test('appended to the empty list of the start, before or after the text', () => {
    const message = accumulate([
      start,
      textStart(0, { citations: [] }),
      cite(CITE_A),
      text('Grass is green, '),
      text('the sky blue.'),
      cite(CITE_B),
      stop(),
      messageDelta(),
      messageStop(),
    ]);
    expect(message.content).toEqual([
      { type: 'text', text: 'Grass is green, the sky blue.', citations: [CITE_A, CITE_B] },
    ]);
  });

  test('a start without citations (or with null) gets the list of the deltas; one with citations keeps them first', () => {
    for (const first of [{}, { citations: null }]) {
      const message = accumulate([
        start,
        textStart(0, first),
        text('a'),
        cite(CITE_B),
        stop(),
        messageDelta(),
        messageStop(),
      ]);
      expect(message.content).toEqual([{ type: 'text', text: 'a', citations: [CITE_B] }]);
    }
    const kept = accumulate([
      start,
      textStart(0, { citations: [CITE_A] }),
      text('a'),
      cite(CITE_B),
      stop(),
      messageDelta(),
      messageStop(),
    ]);
    expect(kept.content).toEqual([{ type: 'text', text: 'a', citations: [CITE_A, CITE_B] }]);
  });

  test('a text block without citations_delta is left as it started; one without a citation adds none', () => {
    const message = accumulate([
      start,
      textStart(),
      text('a'),
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta' } },
      stop(),
      messageDelta(),
      messageStop(),
    ]);
    expect(message.content).toEqual([{ type: 'text', text: 'a' }]);
  });

  test('on a tool_use block a citations_delta is a delta type the spec does not list: skipped, no violation', () => {
    const acc = new StreamAccumulator();
    for (const e of [
      start,
      toolStart(0, 'toolu_1'),
      cite(CITE_A),
      json('{}'),
      stop(),
      messageDelta('tool_use'),
      messageStop(),
    ]) {
      acc.push(e);
    }
    expect(acc.finish().content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }]);
    expect(acc.unknownDeltas).toEqual(['citations_delta']);
  });
});

describe("message_delta's delta: the reply's final fields beside the stop reason", () => {
  test('stop_details and container of message_delta replace the nulls of message_start', () => {
    const message = accumulate([
      start,
      textStart(),
      text('no'),
      stop(),
      messageDelta('refusal', { stop_details: STOP_DETAILS, container: CONTAINER }),
      messageStop(),
    ]);
    expect(message).toMatchObject({
      stop_reason: 'refusal',
      stop_details: STOP_DETAILS,
      container: CONTAINER,
    });
  });

  test('a null in message_delta does not replace what message_start gave; it is kept where nothing was', () => {
    const { stop_details: _, ...withoutDetails } = start.message;
    const message = accumulate([
      { ...start, message: { ...withoutDetails, container: CONTAINER } },
      textStart(),
      text('a'),
      stop(),
      messageDelta('end_turn', { stop_details: null, container: null }),
      messageStop(),
    ]);
    expect(message).toMatchObject({ stop_details: null, container: CONTAINER });
  });

  test('the fields message_start alone gives (id, model, content, usage...) are not replaced', () => {
    const message = accumulate([
      start,
      textStart(),
      text('a'),
      stop(),
      messageDelta('end_turn', { id: 'msg_other', model: 'other', role: 'user', content: [], usage: {} }),
      messageStop(),
    ]);
    expect(message).toMatchObject({
      id: 'msg_1',
      model: 'm',
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }],
      usage: { input_tokens: 3, output_tokens: 9 },
    });
  });
});
