import { describe, expect, test } from 'vitest';
import { MessageFrameReducer } from '../../../src/clients/messages/index.js';
import { StreamErrorEvent, StreamProtocolError } from '../../../src/protocol/messages/index.js';
import { encodeComment, encodeFrame } from '../../../src/protocol/sse/index.js';
import { MESSAGE, streamBody } from './raw-service.js';

function reduce(body: string, sliceBytes = 1 << 16): MessageFrameReducer & { message: unknown } {
  const reducer = new MessageFrameReducer() as MessageFrameReducer & { message: unknown };
  const bytes = Buffer.from(body, 'utf8');
  for (let i = 0; i < bytes.length; i += sliceBytes) reducer.feed(bytes.subarray(i, i + sliceBytes));
  reducer.message = reducer.end();
  return reducer;
}

function violation(body: string): StreamProtocolError {
  try {
    reduce(body);
  } catch (error) {
    if (error instanceof StreamProtocolError) return error;
    throw error;
  }
  throw new Error('expected a StreamProtocolError');
}

const start = streamBody().split('\n\n')[0]!;

describe('message frame reducer (Events: stream frames of the messages service)', () => {
  test('byte slices that split UTF-8 characters and frames reduce to the streamed message', () => {
    const body = streamBody();
    for (const size of [1, 2, 3, 5, 7, 13, 64]) {
      expect(reduce(body, size).message, `slices of ${size} bytes`).toEqual(MESSAGE);
    }
  });

  test('events fed with a sink are handed out in order, once each', () => {
    const reducer = new MessageFrameReducer();
    const sink: { type: string }[] = [];
    reducer.feed(Buffer.from(streamBody()), sink as never);
    expect(sink[0]?.type).toBe('message_start');
    expect(sink.at(-1)?.type).toBe('message_stop');
    expect(sink).toHaveLength(reducer.eventCount);
  });

  test('a frame whose JSON type differs from its event name is a shape violation naming the frame', () => {
    const body = `${start}\n\n${encodeFrame('content_block_start', JSON.stringify({ type: 'content_block_stop', index: 0 }))}`;
    const error = violation(body);
    expect(error.kind).toBe('shape');
    expect(error.expected).toContain('data.type "content_block_start" in frame 2');
    expect(error.actual).toBe('type "content_block_stop"');
  });

  test('data that is not JSON is a shape violation naming the frame and event', () => {
    const error = violation(`${start}\n\nevent: content_block_start\ndata: {"type":\n\n`);
    expect(error.kind).toBe('shape');
    expect(error.expected).toBe('JSON data in frame 2 (event content_block_start)');
  });

  test('a frame without an event line is a shape violation naming the frame (the SDK would drop its data)', () => {
    const [first, ...rest] = streamBody().split('\n\n');
    const stray = encodeFrame(undefined, JSON.stringify({ type: 'message_stop' }));
    const error = violation([first, stray.trimEnd(), ...rest].join('\n\n'));
    expect(error.kind).toBe('shape');
    expect(error.expected).toBe('an event: line in frame 2 (every frame names its event)');
  });

  test('pings, comments and unknown event names are ignored; unknown names are counted', () => {
    const [first, ...rest] = streamBody().split('\n\n');
    const extra = [
      encodeFrame('ping', '{"type":"ping"}'),
      encodeComment('keep-alive'),
      encodeFrame('thinking_hint', 'not even JSON'),
    ].map((f) => f.trimEnd());
    const reducer = reduce([first, ...extra, ...rest].join('\n\n'));
    expect(reducer.message).toEqual(MESSAGE);
    expect(reducer.unknownEvents).toEqual(['thinking_hint']);
    expect(reducer.unknownEventCount).toBe(1);
  });

  test('an error event, first or mid-stream, stops the stream with its error type', () => {
    const errorFrame = encodeFrame(
      'error',
      JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    for (const body of [errorFrame, `${start}\n\n${errorFrame}`]) {
      const error = violation(body);
      expect(error).toBeInstanceOf(StreamErrorEvent);
      expect((error as StreamErrorEvent).body.error.type).toBe('overloaded_error');
    }
  });

  test('a last frame without its terminating blank line is truncated', () => {
    const body = streamBody();
    const error = violation(body.slice(0, body.length - 1));
    expect(error.kind).toBe('truncated');
    expect(error.actual).toContain('unterminated frame');
  });

  test('a body that ends cleanly before message_stop is truncated', () => {
    expect(violation(`${start}\n\n`).kind).toBe('truncated');
    expect(violation('').kind).toBe('truncated');
  });
});
