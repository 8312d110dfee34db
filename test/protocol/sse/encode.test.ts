import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeWithCallbacks } from '../../../src/fuzz/oracles/sse.js';
import { encodeComment, encodeEvent, encodeFrame, type LineEnding } from '../../../src/protocol/sse/index.js';
import { arbCodePoint } from '../../../src/suites/arbitraries/text.js';

const arbLineEnding = fc.constantFrom<LineEnding>('\n', '\r\n', '\r');

describe('frame encoding', () => {
  test('a frame is an event line, a data line and a blank line', () => {
    expect(encodeEvent({ type: 'ping' })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(encodeFrame(undefined, 'x', '\r\n')).toBe('data: x\r\n\r\n');
  });

  test('multi-line data becomes one data line per line, whatever terminated it', () => {
    expect(encodeFrame('e', 'a\r\nb\rc\nd', '\n')).toBe('event: e\ndata: a\ndata: b\ndata: c\ndata: d\n\n');
  });

  test('a comment frame is a colon line and a blank line', () => {
    expect(encodeComment('')).toBe(':\n\n');
    expect(encodeComment('keep-alive', '\r')).toBe(': keep-alive\r\r');
  });

  test('the JSON of an event never holds a raw line terminator', () => {
    const text = encodeEvent({ type: 'content_block_delta', text: 'a\nb\rc\u2028' } as { type: string });
    expect(text).toBe(
      'event: content_block_delta\ndata: {"type":"content_block_delta","text":"a\\nb\\rc\u2028"}\n\n',
    );
  });
});

describe('round trip through the decoder', () => {
  test('encodeFrame then decode gives the event and the data, line terminators in data as \\n', () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }).filter((s) => !/[\r\n]/.test(s)),
        ),
        fc.string({ unit: arbCodePoint, maxLength: 40 }),
        arbLineEnding,
        (event, data, eol) => {
          const decoded = decodeWithCallbacks([encodeFrame(event ?? undefined, data, eol)]);
          expect(decoded.frames).toEqual([
            { event: event ?? undefined, data: data.replace(/\r\n|\r/g, '\n'), id: undefined },
          ]);
          expect(decoded.unterminated).toBe('');
        },
      ),
      { numRuns: 300, seed: 31 },
    );
  });

  test('encodeEvent then decode and JSON.parse gives the payload back', () => {
    const arbType = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/[\r\n]/.test(s));
    const arbPayload = fc.record({ type: arbType, value: fc.jsonValue({ maxDepth: 2 }) });
    fc.assert(
      fc.property(arbPayload, arbLineEnding, (payload, eol) => {
        const [frame, ...rest] = decodeWithCallbacks([encodeEvent(payload, eol)]).frames;
        expect(rest).toEqual([]);
        expect(frame?.event).toBe(payload.type);
        expect(JSON.parse(frame?.data ?? '')).toEqual(JSON.parse(JSON.stringify(payload)));
      }),
      { numRuns: 300, seed: 32 },
    );
  });

  test('encodeComment then decode gives the comment and no frame', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: arbCodePoint, maxLength: 20 }).filter((s) => !/[\r\n]/.test(s)),
        arbLineEnding,
        (text, eol) => {
          const decoded = decodeWithCallbacks([encodeComment(text, eol)]);
          expect(decoded.comments).toEqual([text]);
          expect(decoded.frames).toEqual([]);
          expect(decoded.unterminated).toBe('');
        },
      ),
      { numRuns: 200, seed: 33 },
    );
  });
});
