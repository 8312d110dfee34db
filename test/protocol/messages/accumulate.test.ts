import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  accumulate,
  eventsOfMessage,
  StreamAccumulator,
  StreamErrorEvent,
  StreamProtocolError,
  type StreamViolationKind,
} from '../../../src/protocol/messages/index.js';
import { arbMessage } from '../../../src/suites/arbitraries/messages.js';
import {
  json,
  messageDelta,
  messageStart,
  messageStop,
  overloadedError,
  ping,
  stop,
  text,
  textStart,
  toolStart,
} from './events.js';

const start = messageStart();

/** The error `accumulate(events)` throws (fails the test when it throws none). */
function violation(events: unknown[]): StreamProtocolError {
  try {
    accumulate(events);
  } catch (e) {
    if (e instanceof StreamProtocolError) return e;
    throw e;
  }
  throw new Error('expected a StreamProtocolError, the stream was accepted');
}

function expectViolation(
  events: unknown[],
  kind: StreamViolationKind,
  expected: string,
  actual: string,
  eventIndex: number,
): void {
  const e = violation(events);
  expect({ kind: e.kind, expected: e.expected, actual: e.actual, eventIndex: e.eventIndex }).toEqual({
    kind,
    expected,
    actual,
    eventIndex,
  });
  expect(e.message).toBe(`${kind} at event ${eventIndex}: expected ${expected}, got ${actual}`);
}

describe('a valid stream', () => {
  test('partial_json fragments of one index are concatenated and parsed once at content_block_stop', () => {
    const message = accumulate([
      start,
      toolStart(),
      json('{"comm'),
      ping(),
      json('and":"ls"}'),
      stop(),
      messageDelta('tool_use'),
      messageStop(),
    ]);
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'toolu_0', name: 'bash', input: { command: 'ls' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toEqual({ input_tokens: 3, output_tokens: 9 });
  });

  test('text deltas of a block are concatenated in order', () => {
    const message = accumulate([
      start,
      textStart(),
      text('hé'),
      text('llo 👋'),
      stop(),
      messageDelta(),
      messageStop(),
    ]);
    expect(message.content).toEqual([{ type: 'text', text: 'héllo 👋' }]);
  });

  test('pings anywhere are ignored, before message_start and after message_stop too', () => {
    const events = [start, textStart(), text('a'), stop(), messageDelta(), messageStop()];
    const reference = accumulate(events);
    for (let at = 0; at <= events.length; at++) {
      expect(accumulate([...events.slice(0, at), ping(), ping(), ...events.slice(at)])).toEqual(reference);
    }
  });

  test('unknown event types are ignored and listed in arrival order', () => {
    const acc = new StreamAccumulator();
    for (const e of [
      { type: 'future_event' },
      start,
      { type: 'x', index: 0 },
      messageDelta(),
      messageStop(),
    ]) {
      acc.push(e);
    }
    expect(acc.finish().content).toEqual([]);
    expect(acc.unknownEvents).toEqual(['future_event', 'x']);
  });

  test('what the real API adds is tolerated: new stop reasons, block types, delta types, usage counters', () => {
    const acc = new StreamAccumulator();
    const thinking = { type: 'thinking', thinking: '', signature: '' };
    for (const e of [
      start,
      { type: 'content_block_start', index: 0, content_block: thinking },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2ln' } },
      stop(0),
      textStart(1),
      text('a', 1),
      { type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'wirecheck_future_delta', value: 1 } },
      text('b', 1),
      stop(1),
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'bash' },
      },
      json('{"command":"ls"}', 2),
      stop(2),
      {
        ...messageDelta('pause_turn'),
        usage: { output_tokens: 9, cache_read_input_tokens: 4, server_tool_use: { web_search_requests: 1 } },
      },
      messageStop(),
    ]) {
      acc.push(e);
    }
    const message = acc.finish();
    expect(message.content).toEqual([
      { type: 'text', text: 'ab', citations: [{}] },
      { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'ls' } },
    ]);
    expect(message.stop_reason).toBe('pause_turn');
    expect(message.usage).toMatchObject({ input_tokens: 3, output_tokens: 9, cache_read_input_tokens: 4 });
    expect(acc.unknownBlocks).toEqual(['thinking']);
    expect(acc.unknownDeltas).toEqual(['wirecheck_future_delta']);
    expect(acc.blocksWithoutDeltas).toEqual([]);
  });

  test("message_delta's usage with null counts (the real API's) keeps message_start's counts", () => {
    const message = accumulate([
      start,
      textStart(),
      text('a'),
      stop(),
      {
        ...messageDelta(),
        usage: {
          input_tokens: null,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: null,
          output_tokens: 5,
          server_tool_use: null,
        },
      },
      messageStop(),
    ]);
    expect(message.usage).toEqual({ input_tokens: 3, output_tokens: 5 });
  });

  test('stop_reason and stop_sequence left out where the spec shows null read as null (their default)', () => {
    const { stop_reason: _r, stop_sequence: _s, ...container } = start.message;
    const message = accumulate([
      { type: 'message_start', message: container },
      textStart(),
      text('a'),
      stop(),
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
      messageStop(),
    ]);
    expect(message).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });

  test('a tool_use start without input (the spec lists only id and name) starts from an empty object', () => {
    const noInput = {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 't', name: 'n' },
    };
    expect(accumulate([start, noInput, stop(0), messageDelta('tool_use'), messageStop()]).content).toEqual([
      { type: 'tool_use', id: 't', name: 'n', input: {} },
    ]);
  });

  test('a known delta type on the wrong block is still a violation', () => {
    expect(violation([start, textStart(), json('{}')]).kind).toBe('delta-type');
  });

  test('a block closed without any delta is listed in blocksWithoutDeltas and keeps its start value', () => {
    const acc = new StreamAccumulator();
    for (const e of [
      start,
      textStart(0),
      stop(0),
      toolStart(1),
      stop(1),
      textStart(2),
      text('x', 2),
      stop(2),
    ]) {
      acc.push(e);
    }
    acc.push(messageDelta('tool_use'));
    acc.push(messageStop());
    expect(acc.blocksWithoutDeltas).toEqual([0, 1]);
    expect(acc.finish().content).toEqual([
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} },
      { type: 'text', text: 'x' },
    ]);
  });

  test('eventCount counts every event, pings included, and ended turns true at message_stop', () => {
    const acc = new StreamAccumulator();
    for (const e of [ping(), start, messageDelta()]) acc.push(e);
    expect(acc.ended).toBe(false);
    acc.push(messageStop());
    expect(acc.ended).toBe(true);
    expect(acc.eventCount).toBe(4);
  });

  test('fields the spec does not list are kept (the real API adds some)', () => {
    const message = accumulate([
      { ...start, message: { ...start.message, container: null } },
      { ...textStart(), content_block: { type: 'text', text: '', citations: [] } },
      stop(),
      { ...messageDelta(), usage: { output_tokens: 9, cache_read_input_tokens: 2 } },
      messageStop(),
    ]);
    expect(message).toMatchObject({
      container: null,
      content: [{ type: 'text', text: '', citations: [] }],
      usage: { input_tokens: 3, output_tokens: 9, cache_read_input_tokens: 2 },
    });
  });
});

describe('order violations (Events rule 1)', () => {
  test('an event before message_start is an order violation naming what arrived', () => {
    expectViolation([stop()], 'order', 'message_start', 'content_block_stop (index 0)', 0);
  });

  test('a delta before its content_block_start is an order violation', () => {
    expectViolation(
      [start, text('a')],
      'order',
      'content_block_start or message_delta',
      'content_block_delta (index 0)',
      1,
    );
  });

  test('message_stop without message_delta is an order violation', () => {
    expectViolation(
      [start, messageStop()],
      'order',
      'content_block_start or message_delta',
      'message_stop',
      1,
    );
  });

  test('a block start while a block is open is an order violation', () => {
    expectViolation(
      [start, textStart(0), textStart(1)],
      'order',
      'content_block_delta or content_block_stop',
      'content_block_start (index 1)',
      2,
    );
  });

  test('message_delta while a block is open is an order violation', () => {
    expectViolation(
      [start, textStart(), text('a'), messageDelta()],
      'order',
      'content_block_delta or content_block_stop',
      'message_delta',
      3,
    );
  });

  test('a block after message_delta is an order violation', () => {
    expectViolation(
      [start, messageDelta(), textStart()],
      'order',
      'message_stop',
      'content_block_start (index 0)',
      2,
    );
  });

  test('a second message_start is an order violation', () => {
    expectViolation([start, start], 'order', 'content_block_start or message_delta', 'message_start', 1);
    expectViolation(
      [ping(), start, textStart(), ping(), start],
      'order',
      'content_block_delta or content_block_stop',
      'message_start',
      4,
    );
  });

  test('an event after message_stop is an order violation', () => {
    expectViolation(
      [start, messageDelta(), messageStop(), messageStop()],
      'order',
      'end of stream',
      'message_stop',
      3,
    );
  });
});

describe('index violations', () => {
  test('the first block must have index 0, the next index 1', () => {
    expectViolation(
      [start, textStart(1)],
      'index',
      'content_block_start at index 0',
      'content_block_start (index 1)',
      1,
    );
    expectViolation(
      [start, textStart(0), stop(0), textStart(0)],
      'index',
      'content_block_start at index 1',
      'content_block_start (index 0)',
      3,
    );
  });

  test('a delta or stop for another index than the open block is an index violation', () => {
    expectViolation(
      [start, textStart(), text('a', 1)],
      'index',
      'content_block_delta for index 0',
      'content_block_delta (index 1)',
      2,
    );
    expectViolation(
      [start, textStart(), stop(2)],
      'index',
      'content_block_stop for index 0',
      'content_block_stop (index 2)',
      2,
    );
  });

  test('a missing index is an index violation', () => {
    expectViolation(
      [start, { type: 'content_block_start', content_block: { type: 'text', text: '' } }],
      'index',
      'content_block_start at index 0',
      'content_block_start',
      1,
    );
  });
});

describe('delta-type violations', () => {
  test('an input_json_delta on a text block', () => {
    expectViolation(
      [start, textStart(), json('{}')],
      'delta-type',
      'text_delta {text: string} for a text block',
      '{"type":"input_json_delta","partial_json":"{}"}',
      2,
    );
  });

  test('a text_delta on a tool_use block', () => {
    expectViolation(
      [start, toolStart(), text('a')],
      'delta-type',
      'input_json_delta {partial_json: string} for a tool_use block',
      '{"type":"text_delta","text":"a"}',
      2,
    );
  });

  test('a delta without a delta object', () => {
    expectViolation(
      [start, textStart(), { type: 'content_block_delta', index: 0 }],
      'delta-type',
      'text_delta {text: string} for a text block',
      'undefined',
      2,
    );
  });
});

describe('json violations (Events rule 3)', () => {
  test('fragments that do not concatenate to JSON fail at the block stop', () => {
    const e = violation([start, toolStart(), json('{"a":'), json('1'), stop()]);
    expect([e.kind, e.expected, e.eventIndex]).toEqual([
      'json',
      'the partial_json fragments of index 0 to form JSON',
      4,
    ]);
    expect(e.actual).toMatch(/ in "\{\\"a\\":1"$/);
  });

  test('fragments that join to JSON nested a million levels deep fail at the block stop, naming the depth limit', () => {
    // Parsed, such a value crashes whatever walks it next (JSON.stringify: RangeError).
    const levels = 1_000_000;
    const events = [start, toolStart(), json('{"a":'), json('['.repeat(levels)), json(']'.repeat(levels))];
    const e = violation([...events, json('}'), stop(), messageDelta('tool_use'), messageStop()]);
    expect([e.kind, e.expected, e.eventIndex]).toEqual([
      'json',
      'the partial_json fragments of index 0 to form JSON',
      6,
    ]);
    expect(e.actual).toMatch(
      /^JSON nested deeper than the 512-level limit \(maxDepth\): level 513 at offset 516 in "/,
    );
    expect(e.actual).toMatch(/\.\.\. \(2000006 chars\)$/);
  });

  test('fragments that join to JSON longer than the length limit fail at the block stop, naming it', () => {
    const long = `{"a":"${'x'.repeat(16 * 1024 * 1024)}"}`;
    const e = violation([start, toolStart(), json(long), stop()]);
    expect([e.kind, e.eventIndex]).toEqual(['json', 3]);
    expect(e.actual).toMatch(
      /^JSON text longer than the 16777216-character limit \(maxLength\): 16777224 characters in "/,
    );
  });

  test('fragments that concatenate to JSON other than an object fail at the block stop', () => {
    expectViolation(
      [start, toolStart(), json('[1'), json(']'), stop()],
      'json',
      'a JSON object as input of index 0',
      '"[1]"',
      4,
    );
  });
});

describe('shape violations', () => {
  test.each([
    ['null', null, 'null'],
    ['a string', 'message_start', '"message_start"'],
    ['an array', [start], JSON.stringify([start])],
    ['undefined', undefined, 'undefined'],
  ])('an event that is %s', (_name, event, actual) => {
    expectViolation([event], 'shape', 'a JSON object', actual, 0);
  });

  test('an event without a string type', () => {
    expectViolation([ping(), { type: 7 }], 'shape', 'an event with a string type', '{"type":7}', 1);
    expectViolation([{ index: 0 }], 'shape', 'an event with a string type', '{"index":0}', 0);
  });

  test('a message_start without the message container fields', () => {
    const { id: _, ...noId } = start.message;
    const e = violation([{ ...start, message: noId }]);
    expect([e.kind, e.expected, e.eventIndex]).toEqual([
      'shape',
      'message_start with the message container',
      0,
    ]);
    expect(e.actual).toMatch(/^message\.id: /);
  });

  test('a message_start whose message already has content or a stop reason', () => {
    expect(
      violation([{ ...start, message: { ...start.message, content: [{ type: 'text', text: '' }] } }]).kind,
    ).toBe('shape');
    expect(violation([{ ...start, message: { ...start.message, stop_reason: 'end_turn' } }]).kind).toBe(
      'shape',
    );
  });

  test.each([
    ['a block without a type', { text: 'x' }],
    ['a text block without text', { type: 'text' }],
    ['a tool_use block without id', { type: 'tool_use', name: 'bash', input: {} }],
    ['a tool_use block with an empty name', { type: 'tool_use', id: 'toolu_1', name: '', input: {} }],
    [
      'a tool_use block whose input is an array',
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: [] },
    ],
    ['a missing block', undefined],
  ])('a content_block_start with %s', (_name, block) => {
    expectViolation(
      [start, { type: 'content_block_start', index: 0, content_block: block }],
      'shape',
      'content_block {type: text, text} or {type: tool_use, id, name, input: object}',
      JSON.stringify(block) ?? 'undefined',
      1,
    );
  });

  test('a message_delta whose stop reason is not a string', () => {
    const e = violation([start, { ...messageDelta(), delta: { stop_reason: 42, stop_sequence: null } }]);
    expect([e.kind, e.eventIndex]).toEqual(['shape', 1]);
    expect(e.actual).toMatch(/^delta\.stop_reason: /);
  });

  test('a message_delta without usage', () => {
    const { usage: _, ...noUsage } = messageDelta();
    expect(violation([start, noUsage]).actual).toMatch(/^usage: /);
  });

  test('an error event without the error object', () => {
    expectViolation(
      [start, { type: 'error' }],
      'shape',
      'error event {type, error: {type, message}}',
      '{"type":"error"}',
      1,
    );
  });
});

describe('truncated streams', () => {
  test('an empty stream is truncated before message_start', () => {
    expectViolation(
      [],
      'truncated',
      'message_start before the stream ends',
      'end of stream after 0 events',
      0,
    );
  });

  test('a stream without message_stop is truncated', () => {
    expectViolation(
      [start],
      'truncated',
      'content_block_start or message_delta before the stream ends',
      'end of stream after 1 events',
      1,
    );
    expectViolation(
      [start, messageDelta()],
      'truncated',
      'message_stop before the stream ends',
      'end of stream after 2 events',
      2,
    );
  });

  test('a stream cut inside a block names the open block', () => {
    expectViolation(
      [ping(), start, toolStart(), json('{')],
      'truncated',
      'content_block_delta or content_block_stop before the stream ends',
      'end of stream with block 0 open after 4 events',
      4,
    );
  });
});

describe('error events', () => {
  test.each([
    ['as the first event', [overloadedError()], 0],
    ['after pings', [ping(), ping(), overloadedError()], 2],
    ['mid-stream, inside a block', [start, textStart(), text('a'), overloadedError()], 3],
    ['after message_stop', [start, messageDelta(), messageStop(), overloadedError()], 3],
  ])('an error event %s throws StreamErrorEvent with the body', (_name, events, at) => {
    const e = violation(events);
    expect(e).toBeInstanceOf(StreamErrorEvent);
    expect((e as StreamErrorEvent).body).toEqual(overloadedError());
    expect([e.kind, e.expected, e.actual, e.eventIndex]).toEqual([
      'error-event',
      'no error event',
      'overloaded_error: Overloaded',
      at,
    ]);
  });
});

describe('properties', () => {
  test('for any message and any delta splits, reducing its event stream gives the message back', () => {
    // Any cut offsets, even inside a surrogate pair: the reducer concatenates strings.
    const arbCase = arbMessage().chain((message) =>
      fc
        .tuple(...message.content.map(() => fc.array(fc.nat({ max: 400 }), { maxLength: 8 })))
        .map((splits) => ({ message, splits })),
    );
    fc.assert(
      fc.property(arbCase, ({ message, splits }) => {
        expect(accumulate(eventsOfMessage(message, splits))).toEqual(message);
      }),
      { numRuns: 300, seed: 41 },
    );
  });

  test('every prefix of a valid stream is truncated, at the length of the prefix', () => {
    fc.assert(
      fc.property(arbMessage({ maxBlocks: 2 }), (message) => {
        const events = eventsOfMessage(message);
        for (let n = 0; n < events.length; n++) {
          const e = violation(events.slice(0, n));
          expect([e.kind, e.eventIndex]).toEqual(['truncated', n]);
        }
      }),
      { numRuns: 100, seed: 42 },
    );
  });
});
