import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { mutateBytes } from '../../src/fuzz/mutations/bytes.js';
import { applyEventMutation, arbEventMutation, type EventMutation } from '../../src/fuzz/mutations/events.js';
import { FuzzViolation } from '../../src/fuzz/surface.js';
import { sseDecoderSurface } from '../../src/fuzz/surfaces/sse-decoder.js';
import { streamReducerSurface } from '../../src/fuzz/surfaces/stream-reducer.js';
import { eventsOfMessage, type Message } from '../../src/protocol/messages/index.js';

const message: Message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [
    { type: 'text', text: 'ab' },
    { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 2 },
};
// 0 start, 1 block start 0, 2-3 text deltas, 4 stop 0, 5 block start 1, 6-7 json deltas, 8 stop 1, 9 message_delta, 10 message_stop
const events = eventsOfMessage(message, [[1], [3]]);
const expectedOf = (m: EventMutation) => applyEventMutation(events, message, m).expected;
const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => Buffer.from(b).toString('latin1');

describe('event mutations know the outcome the reducer contract fixes', () => {
  test('dropping message_start is an order violation at the next event', () => {
    expect(expectedOf({ op: 'drop', target: 0 })).toEqual({
      outcome: 'violation',
      kind: 'order',
      eventIndex: 0,
      expected: 'message_start',
    });
  });

  test('dropping message_stop truncates the stream', () => {
    expect(expectedOf({ op: 'drop', target: 6 })).toEqual({
      outcome: 'violation',
      kind: 'truncated',
      eventIndex: 10,
    });
  });

  test('a duplicated message_stop is an order violation expecting the end of the stream', () => {
    expect(expectedOf({ op: 'duplicate', target: 8 })).toMatchObject({
      kind: 'order',
      eventIndex: 11,
      expected: 'end of stream',
    });
  });

  test('a duplicated text delta is benign and doubles its text', () => {
    expect(expectedOf({ op: 'duplicate', target: 2 })).toMatchObject({
      outcome: 'message',
      message: { content: [{ type: 'text', text: 'aab' }, message.content[1]] },
    });
  });

  test('corrupted tool JSON fails at the block stop', () => {
    expect(expectedOf({ op: 'corrupt-json', target: 0, how: 'extra-brace' })).toEqual({
      outcome: 'violation',
      kind: 'json',
      eventIndex: 8,
      expected: 'the partial_json fragments of index 1 to form JSON',
    });
  });

  test('an inserted error event is reported with its body where it was inserted', () => {
    const { events: out, expected } = applyEventMutation(events, message, {
      op: 'insert-error',
      at: 3,
      errorType: 'overloaded_error',
      message: 'busy',
    });
    expect(out[3]).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } });
    expect(expected).toMatchObject({ kind: 'error-event', eventIndex: 3, body: out[3] });
  });

  test('every mutation applies to a message without blocks', () => {
    const empty: Message = { ...message, content: [], stop_reason: 'end_turn' };
    for (const m of fc.sample(arbEventMutation, { numRuns: 200, seed: 5 })) {
      expect(() => applyEventMutation(eventsOfMessage(empty), empty, m)).not.toThrow();
    }
  });
});

describe('byte mutations', () => {
  const b = bytes('data: x\n\n');

  test.each([
    [{ op: 'truncate', at: 4 }, 'data'],
    [{ op: 'flip', at: 0, bit: 5 }, 'Data: x\n\n'],
    [{ op: 'duplicate', at: 6, length: 1 }, 'data: xx\n\n'],
    [{ op: 'delete', at: 4, length: 2 }, 'datax\n\n'],
    [{ op: 'insert', at: 7, bytes: [13], what: 'CR' }, 'data: x\r\n\n'],
    [{ op: 'insert', at: 9 + 10, bytes: [0xff], what: 'invalid byte 0xFF' }, 'data: x\n\n\xff'],
  ] as const)('%j', (m, result) => {
    expect(text(mutateBytes(b, m))).toBe(result);
  });

  test('a huge line is inserted whole, with its field name and terminator when asked', () => {
    const out = text(mutateBytes(b, { op: 'huge-line', at: 0, length: 5000, field: true, terminated: true }));
    expect(out).toBe(`data: ${'x'.repeat(5000)}\ndata: x\n\n`);
  });
});

describe('surface checks fail when the rule is broken', () => {
  test('the reducer surface rejects an outcome other than the expected one', () => {
    const { check } = streamReducerSurface.open() as ReturnType<typeof streamReducerSurface.open> & {
      check: (c: unknown) => void;
    };
    const wrong = { outcome: 'violation' as const, kind: 'truncated' as const, eventIndex: 3 };
    expect(() =>
      check({
        origin: 'mutated stream',
        mutation: { op: 'truncate', at: 4 },
        events: events.slice(0, 4),
        expected: wrong,
      }),
    ).toThrow(FuzzViolation);
    expect(() =>
      check({
        origin: 'mutated stream',
        mutation: { op: 'truncate', at: 4 },
        events: events.slice(0, 4),
        expected: { ...wrong, eventIndex: 4 },
      }),
    ).not.toThrow();
  });

  test('the decoder surface rejects a valid case that does not decode to its events', () => {
    const { check } = sseDecoderSurface.open() as { check: (c: unknown) => void };
    const valid = { events: [{ type: 'ping' }], message };
    const c = {
      origin: 'stream case',
      mutations: [],
      bytes: bytes('event: ping\ndata: {"type":"pong"}\n\n'),
      cuts: [],
      valid,
    };
    expect(() => check(c)).toThrow(/did not decode to its events/);
  });
});
