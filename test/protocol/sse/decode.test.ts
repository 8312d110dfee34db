import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeWithCallbacks, referenceDecode } from '../../../src/fuzz/oracles/sse.js';
import {
  createFrameDecoder,
  DEFAULT_SSE_LIMITS,
  decodeFrames,
  encodeComment,
  encodeFrame,
  type LineEnding,
  type SseLimitError,
  type SseLimits,
} from '../../../src/protocol/sse/index.js';
import { chunkBytes, interestingCuts } from '../../../src/suites/arbitraries/messages.js';
import { arbCodePoint } from '../../../src/suites/arbitraries/text.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array(b);
const frame = (data: string, event?: string, id?: string) => ({ event, data, id });

/** Every way to cut `b` in two, plus one byte per chunk. */
function chunkings(b: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [[b], Array.from(b, (x) => bytes(x))];
  for (let i = 1; i < b.length; i++) all.push([b.subarray(0, i), b.subarray(i)]);
  return all;
}

describe('line terminators', () => {
  test.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['lone CR', '\r'],
  ] as const)('frames separated by %s decode to the same frames', (_name, eol) => {
    const text = `event: a${eol}data: 1${eol}${eol}data: 2${eol}data: 3${eol}${eol}`;
    expect(decodeFrames([text])).toEqual({ frames: [frame('1', 'a'), frame('2\n3')], unterminated: '' });
  });

  test('a CRLF split across chunks is one line terminator', () => {
    // Were the CR and the LF two terminators, the LF would be a blank line ending the frame at "a".
    const { frames } = decodeFrames(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(frames).toEqual([frame('a\nb')]);
  });

  test('a lone CR at the end of a chunk ends its line when a field follows', () => {
    expect(decodeFrames(['data: a\r', 'data: b\r\r']).frames).toEqual([frame('a\nb')]);
  });

  test('a blank CR line ending a chunk dispatches the pending frame exactly once', () => {
    expect(decodeFrames(['data: a\r\r', '\n', 'data: b\r\r']).frames).toEqual([frame('a'), frame('b')]);
  });

  test('mixed line endings in one stream are all terminators', () => {
    expect(decodeFrames(['data: a\r\ndata: b\rdata: c\n\r\n']).frames).toEqual([frame('a\nb\nc')]);
  });
});

describe('UTF-8 split across chunks', () => {
  test.each([
    ['2-byte (Cyrillic)', 'привет'],
    ['3-byte (CJK, euro)', '中文€'],
    ['4-byte (emoji)', '😀👋🦀'],
    ['mixed with a ZWJ sequence', 'é中😀👩‍💻'],
  ])('a %s character cut at any byte decodes whole', (_name, text) => {
    const b = utf8(encodeFrame('e', text));
    for (const chunks of chunkings(b)) {
      expect(decodeFrames(chunks).frames).toEqual([frame(text, 'e')]);
    }
  });

  test('an invalid UTF-8 byte becomes U+FFFD and does not break the frame', () => {
    const b = new Uint8Array([...utf8('data: a'), 0xff, ...utf8('b\n\n')]);
    expect(decodeFrames([b]).frames).toEqual([frame('a\uFFFDb')]);
  });

  test('a sequence cut off by the end of the stream becomes U+FFFD in the unterminated frame', () => {
    expect(decodeFrames([utf8('data: x'), bytes(0xf0, 0x9f)]).unterminated).toBe('data: x\uFFFD');
  });
});

describe('byte order mark', () => {
  const stream = [0xef, 0xbb, 0xbf, ...utf8('data: x\n\n')];

  test('a leading BOM is skipped however its three bytes are chunked', () => {
    for (const chunks of chunkings(new Uint8Array(stream))) {
      const decoded = decodeWithCallbacks(chunks);
      expect(decoded.frames).toEqual([frame('x')]);
      expect(decoded.invalidLines).toEqual([]);
    }
  });

  test('a leading BOM given as decoded text is skipped', () => {
    expect(decodeFrames(['\uFEFF', 'data: x\n\n']).frames).toEqual([frame('x')]);
  });

  test('only one BOM is skipped: a second one makes the first line an unknown field', () => {
    for (const chunks of [[new Uint8Array([0xef, 0xbb, 0xbf, ...stream])], ['\uFEFF\uFEFFdata: x\n\n']]) {
      const decoded = decodeWithCallbacks(chunks);
      expect(decoded.frames).toEqual([]);
      expect(decoded.invalidLines).toEqual(['\uFEFFdata: x']);
    }
  });

  test('a BOM after the start is data', () => {
    expect(decodeFrames(['data: \uFEFFx\n\n']).frames).toEqual([frame('\uFEFFx')]);
  });
});

describe('fields', () => {
  test('comments are reported through onComment and are not frames', () => {
    const decoded = decodeWithCallbacks([': keep-alive\n\n:\n\n:  two spaces\n\n']);
    expect(decoded.frames).toEqual([]);
    expect(decoded.comments).toEqual(['keep-alive', '', ' two spaces']);
  });

  test('a retry field of ASCII digits is reported through onRetry, whatever the chunking; others are not', () => {
    const text = 'id: 1\nretry: 300\ndata: \n\nretry: 5x\n\nretry: -1\n\nretry:7\ndata: a\n\n';
    for (const cut of [text.length, 1, 7]) {
      const retries: number[] = [];
      const frames: unknown[] = [];
      const decoder = createFrameDecoder({
        onFrame: (f) => frames.push(f),
        onRetry: (ms) => retries.push(ms),
      });
      for (let i = 0; i < text.length; i += cut) decoder.feed(utf8(text.slice(i, i + cut)));
      expect(decoder.end()).toBe('');
      expect(retries).toEqual([300, 7]);
      expect(frames).toEqual([frame('', undefined, '1'), frame('a')]);
    }
  });

  test('a comment between the data lines of a frame does not end it', () => {
    expect(decodeFrames(['data: a\n: ping\ndata: b\n\n']).frames).toEqual([frame('a\nb')]);
  });

  test('multi-line data is joined with \\n, empty data lines included', () => {
    expect(decodeFrames(['data: a\ndata:\ndata: c\ndata\n\n']).frames).toEqual([frame('a\n\nc\n')]);
  });

  test('one space after the colon is dropped, further spaces are data', () => {
    expect(decodeFrames(['data:x\n\ndata:  y\n\n']).frames).toEqual([frame('x'), frame(' y')]);
  });

  test('a frame without an event line has an undefined event, and so has an empty event line', () => {
    expect(decodeFrames(['data: 1\n\nevent:\ndata: 2\n\n']).frames).toEqual([frame('1'), frame('2')]);
  });

  test('the id of a frame is reported with it and not carried to the next', () => {
    expect(decodeFrames(['id: 7\ndata: a\n\ndata: b\n\n']).frames).toEqual([
      frame('a', undefined, '7'),
      frame('b'),
    ]);
  });

  test('a frame with an event line but no data line is not dispatched', () => {
    expect(decodeFrames(['event: ping\n\ndata: x\n\n']).frames).toEqual([frame('x')]);
  });

  test('invalid lines are reported through onInvalidLine, skipped, and do not end the frame', () => {
    const decoded = decodeWithCallbacks(['bogus\ndata: a\nData: b\nretry: soon\nretry: 100\ndata: c\n\n']);
    expect(decoded.frames).toEqual([frame('a\nc')]);
    expect(decoded.invalidLines).toEqual(['bogus', 'Data: b', 'retry: soon']);
  });

  test('an invalid line is reported however the stream is chunked', () => {
    const b = utf8('data: a\n\nxyz: 1\ndata: b\n\n');
    for (const chunks of chunkings(b)) {
      const decoded = decodeWithCallbacks(chunks);
      expect(decoded.invalidLines).toEqual(['xyz: 1']);
      expect(decoded.frames).toEqual([frame('a'), frame('b')]);
    }
  });
});

describe('end of stream', () => {
  test("end() returns '' when the stream ended cleanly", () => {
    expect(decodeFrames(['data: x\n\n']).unterminated).toBe('');
    expect(decodeFrames([]).unterminated).toBe('');
  });

  test("end() returns '' when comments and blank lines follow the last frame", () => {
    expect(decodeFrames(['data: x\n\n: keep-alive\n\n\n\n: bye\n']).unterminated).toBe('');
    expect(decodeFrames(['data: x\r\n\r\n:no end of line']).unterminated).toBe('');
  });

  test("end() returns '' after a trailing comment longer than any lookback window", () => {
    expect(decodeFrames(['data: x\n\n', `: ${'a'.repeat(5000)}\n`]).unterminated).toBe('');
  });

  test('end() returns the fields of a frame not closed by a blank line, comments left out', () => {
    expect(decodeFrames(['data: 1\n\nevent: e\n: c\ndata: {"a"\n']).unterminated).toBe(
      'event: e\ndata: {"a"',
    );
    expect(decodeFrames(['data: 1\r\n\r\nevent: e\r\n']).unterminated).toBe('event: e');
  });

  test('end() returns a last line cut off without a terminator', () => {
    expect(decodeFrames(['data: 1\n\ndata: {"typ']).unterminated).toBe('data: {"typ');
    expect(decodeFrames(['data: 1\n', 'dat']).unterminated).toBe('data: 1\ndat');
  });

  test('an unterminated frame is not dispatched', () => {
    expect(decodeFrames(['data: 1\n']).frames).toEqual([]);
  });

  test('a frame closed by a lone CR at the very end of the stream is complete', () => {
    expect(decodeFrames(['data: 1\r\r'])).toEqual({ frames: [frame('1')], unterminated: '' });
  });
});

const arbLineEnding = fc.constantFrom<LineEnding>('\n', '\r\n', '\r');
/** Field values without line terminators (an event name or a comment is one line). */
const arbLine = fc.string({ unit: arbCodePoint, maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const arbItem = fc.oneof(
  fc.record({
    kind: fc.constant('frame' as const),
    event: fc.option(
      arbLine.filter((s) => s !== ''),
      { nil: undefined },
    ),
    data: fc.string({ unit: arbCodePoint, maxLength: 30 }),
  }),
  fc.record({ kind: fc.constant('comment' as const), text: arbLine }),
);

/** Any cut points of a byte length, mixed with the likeliest troublemakers. */
function arbCuts(b: Uint8Array): fc.Arbitrary<number[]> {
  if (b.length < 2) return fc.constant([]);
  const random = fc.uniqueArray(fc.integer({ min: 1, max: b.length - 1 }), { maxLength: 30 });
  return fc.oneof(random, fc.subarray(interestingCuts(b)));
}

describe('properties', () => {
  test('for any frames, line ending and re-chunking of the bytes, decoding yields exactly the frames', () => {
    const arbCase = fc.tuple(fc.array(arbItem, { maxLength: 8 }), arbLineEnding).chain(([items, eol]) => {
      const text = items
        .map((i) => (i.kind === 'frame' ? encodeFrame(i.event, i.data, eol) : encodeComment(i.text, eol)))
        .join('');
      const b = utf8(text);
      return arbCuts(b).map((cuts) => ({ items, b, chunks: chunkBytes(b, cuts) }));
    });
    fc.assert(
      fc.property(arbCase, ({ items, chunks }) => {
        const decoded = decodeWithCallbacks(chunks);
        expect(decoded.frames).toEqual(
          items.flatMap((i) =>
            i.kind === 'frame' ? [frame(i.data.replace(/\r\n|\r/g, '\n'), i.event)] : [],
          ),
        );
        // encodeComment writes ": text", and a decoder drops the one space after the colon.
        expect(decoded.comments).toEqual(items.flatMap((i) => (i.kind === 'comment' ? [i.text] : [])));
        expect(decoded.invalidLines).toEqual([]);
        expect(decoded.unterminated).toBe('');
      }),
      { numRuns: 300, seed: 20261 },
    );
  });

  test('for any bytes and any chunking, the decoder reports what the whole-stream reference parser does', () => {
    const sseish = fc.oneof(
      fc.uint8Array({ maxLength: 60 }),
      fc.constantFrom(
        ...['data: x', 'event: e', 'id: 1', ': c', 'retry: 5', 'bad', '\r', '\n', '\r\n', '\uFEFF'].map(utf8),
      ),
      fc.constantFrom(bytes(0xef, 0xbb, 0xbf), bytes(0xf0, 0x9f), bytes(0x80), bytes(0)),
    );
    const arbCase = fc
      .array(sseish, { maxLength: 12 })
      .map((parts) => new Uint8Array(parts.flatMap((p) => [...p])))
      .chain((b) => arbCuts(b).map((cuts) => ({ b, chunks: chunkBytes(b, cuts) })));
    fc.assert(
      fc.property(arbCase, ({ b, chunks }) => {
        expect(decodeWithCallbacks(chunks)).toEqual(referenceDecode(b));
      }),
      { numRuns: 400, seed: 20262 },
    );
  });
});

describe('limits', () => {
  function decodeLimited(chunks: (Uint8Array | string)[], limits: SseLimits) {
    const errors: SseLimitError[] = [];
    const frames: ReturnType<typeof frame>[] = [];
    const decoder = createFrameDecoder({
      onFrame: (f) => frames.push(f),
      onLimit: (e) => errors.push(e),
      limits,
    });
    for (const c of chunks) decoder.feed(c);
    return { frames, errors, unterminated: decoder.end() };
  }

  test('a line of exactly maxLineLength characters is decoded; one more is a limit error', () => {
    expect(decodeLimited(['data: 1234\n\n'], { maxLineLength: 10 })).toMatchObject({
      frames: [frame('1234')],
      errors: [],
    });
    const { frames, errors } = decodeLimited(['data: 12345\n\n'], { maxLineLength: 10 });
    expect(frames).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ limit: 'maxLineLength', value: 10, offset: 0, afterFrames: 0 });
  });

  test('a line over the limit is reported once, as soon as it passes it, and its frame is dropped up to the blank line', () => {
    const errors: SseLimitError[] = [];
    const frames: unknown[] = [];
    const decoder = createFrameDecoder({
      onFrame: (f) => frames.push(f),
      onLimit: (e) => errors.push(e),
      limits: { maxLineLength: 100 },
    });
    decoder.feed('data: 1\n\nevent: message\ndata: ');
    for (let i = 0; i < 50; i++) {
      decoder.feed('x'.repeat(10));
      // Reported while the line is still growing: a reader can stop before it ends.
      expect(errors).toHaveLength(i >= 9 ? 1 : 0);
    }
    decoder.feed('\ndata: still the same frame\n\ndata: 2\n\n');
    expect(decoder.end()).toBe('');
    expect(frames).toEqual([frame('1'), frame('2')]);
    expect(errors[0]).toMatchObject({ limit: 'maxLineLength', offset: 24, afterFrames: 1 });
    // What had arrived of the line when it passed the limit: "data: " and ten chunks of 10 x.
    expect(errors[0]).toMatchObject({ seen: 106, head: `data: ${'x'.repeat(100)}` });
    expect(errors[0]!.message).toContain('maxLineLength');
    expect(errors[0]!.message).toContain('100-character limit');
  });

  test('a frame whose lines never end with a blank line is reported once, and decoding resumes after it', () => {
    const { frames, errors, unterminated } = decodeLimited(
      [
        'data: 0\n\n',
        'event: message\n',
        ...Array.from({ length: 40 }, () => 'data: 0123456789\n'),
        '\n',
        'data: 1\n\n',
      ],
      { maxFrameLength: 200 },
    );
    expect(frames).toEqual([frame('0'), frame('1')]);
    expect(unterminated).toBe('');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ limit: 'maxFrameLength', value: 200, offset: 9, afterFrames: 1 });
    expect(errors[0]!.head.startsWith('event: message\ndata: 0123456789')).toBe(true);
  });

  test('a comment line counts against maxLineLength, not against the frame', () => {
    const long = `: ${'k'.repeat(50)}\n`;
    expect(decodeLimited([`data: a\n${long}data: b\n\n`], { maxFrameLength: 20 }).frames).toEqual([
      frame('a\nb'),
    ]);
    const { frames, errors } = decodeLimited([`data: a\n${long}data: b\n\ndata: c\n\n`], {
      maxLineLength: 20,
    });
    expect(errors.map((e) => e.limit)).toEqual(['maxLineLength']);
    expect(frames).toEqual([frame('c')]);
  });

  test('the blank line ending a dropped frame is found across chunks and line endings', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = `data: ${'x'.repeat(30)}${eol}data: y${eol}${eol}data: z${eol}${eol}`;
      for (const chunks of chunkings(utf8(text))) {
        const { frames, errors } = decodeLimited(chunks, { maxLineLength: 20 });
        expect(frames).toEqual([frame('z')]);
        expect(errors).toHaveLength(1);
      }
    }
  });

  test('a stream that ends inside a dropped frame has no unterminated frame to report', () => {
    expect(decodeLimited([`data: ${'x'.repeat(30)}`], { maxLineLength: 20 })).toMatchObject({
      unterminated: '',
      frames: [],
    });
    expect(decodeLimited([`data: ${'x'.repeat(30)}\ndata: y\n`], { maxLineLength: 20 }).unterminated).toBe(
      '',
    );
  });

  test('the defaults are 16 MiB, and a longer line is dropped without being held', () => {
    expect(DEFAULT_SSE_LIMITS).toEqual({ maxLineLength: 16 * 1024 * 1024, maxFrameLength: 16 * 1024 * 1024 });
    const errors: SseLimitError[] = [];
    const decoder = createFrameDecoder({ onFrame: () => {}, onLimit: (e) => errors.push(e) });
    const mib = new Uint8Array(1024 * 1024).fill(0x78);
    decoder.feed('data: ');
    for (let i = 0; i < 40; i++) decoder.feed(mib);
    decoder.feed('\n\n');
    expect(errors.map((e) => [e.limit, e.value])).toEqual([['maxLineLength', 16 * 1024 * 1024]]);
    expect(decoder.end()).toBe('');
  });

  test('for any bytes, limits and chunking, the decoder reports what the whole-stream reference does', () => {
    const arbCase = fc
      .record({
        parts: fc.array(
          fc.constantFrom(
            ...['data: xxxxxx', 'data: y', 'event: e', ': ccccccc', 'bad', '\r', '\n', '\r\n', '\n\n'].map(
              utf8,
            ),
          ),
          { maxLength: 30 },
        ),
        maxLineLength: fc.integer({ min: 1, max: 20 }),
        maxFrameLength: fc.integer({ min: 1, max: 60 }),
      })
      .chain(({ parts, ...limits }) => {
        const b = new Uint8Array(parts.flatMap((p) => [...p]));
        return arbCuts(b).map((cuts) => ({ b, limits, chunks: chunkBytes(b, cuts) }));
      });
    fc.assert(
      fc.property(arbCase, ({ b, limits, chunks }) => {
        expect(decodeWithCallbacks(chunks, limits)).toEqual(referenceDecode(b, limits));
      }),
      { numRuns: 400, seed: 20263 },
    );
  });
});
