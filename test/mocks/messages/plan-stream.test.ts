import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type FaultPlan,
  planMessageSteps,
  planSteps,
  planStream,
  type StreamStep,
} from '../../../src/mocks/messages/index.js';
import { framesOfMessage, messageBatches } from '../../../src/mocks/messages/source-frames.js';
import { eventsOfMessage } from '../../../src/protocol/messages/index.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import { bytesOf, decodeChunks, SAMPLE, SAMPLE_SPLITS, writesOf } from './helpers.js';

const EVENTS = eventsOfMessage(SAMPLE, SAMPLE_SPLITS);
const N = EVENTS.length;
const plan = (faults?: FaultPlan, seed = 7, requestId = 'req_test') =>
  planStream(EVENTS, faults, seed, { requestId });
const kinds = (steps: StreamStep[]) => steps.map((s) => s.kind);
const CLEAN = bytesOf(plan());

describe('planner without faults', () => {
  test('the stream is the canonical event sequence, LF-framed, and reduces to the message', () => {
    const steps = plan();
    const decoded = decodeChunks(writesOf(steps));
    expect(decoded.frames.map((f) => f.event)).toEqual(EVENTS.map((e) => e.type));
    expect(decoded.frames.map((f) => JSON.parse(f.data))).toEqual(EVENTS);
    expect(decoded.message).toEqual(SAMPLE);
    expect(CLEAN.toString('utf8').startsWith('event: message_start\ndata: {')).toBe(true);
    expect(kinds(steps).at(-1)).toBe('end');
  });

  test('frames are joined into writes of framesPerWrite frames', () => {
    const steps = planStream(EVENTS, undefined, 1, { framesPerWrite: 4 });
    const writes = steps.filter((s) => s.kind === 'write');
    const expected = Array.from({ length: Math.ceil(N / 4) }, (_, i) => Math.min(N, 4 * (i + 1)));
    expect(writes.map((w) => w.framesDone)).toEqual(expected);
    expect(Buffer.concat(writesOf(steps))).toEqual(CLEAN);
  });

  test('a message reply is planned the same on the fast path and frame by frame', () => {
    const fast = [
      ...planMessageSteps(SAMPLE, SAMPLE_SPLITS, { lineEnding: 'crlf' }, 1, { framesPerWrite: 5 }),
    ];
    const slow = [
      ...planMessageSteps(SAMPLE, SAMPLE_SPLITS, { lineEnding: 'crlf', idLines: false, pings: {} }, 1),
    ];
    expect(fast.filter((s) => s.kind === 'write').map((s) => s.framesDone)).toEqual([5, 10, 15, N]);
    expect(bytesOf(fast)).toEqual(bytesOf(slow));
    expect(bytesOf(fast)).toEqual(bytesOf(plan({ lineEnding: 'crlf' })));
  });

  test('planSteps is lazy: the first write needs only the first batch of frames', () => {
    let pulled = 0;
    function* endless() {
      for (;;) {
        pulled++;
        yield { event: 'ping', data: '{"type":"ping"}' };
      }
    }
    const steps = planSteps(endless(), undefined, 1, { framesPerWrite: 64 });
    const first = steps.next().value as StreamStep;
    expect(first.kind).toBe('write');
    expect(pulled).toBe(64);
  });

  test('the same seed gives the same steps; another seed other cuts', () => {
    const faults: FaultPlan = { chunking: { mode: 'random' }, pings: { rate: 0.5 } };
    expect(plan(faults, 3)).toEqual(plan(faults, 3));
    expect(bytesOf(plan(faults, 3))).not.toEqual(bytesOf(plan(faults, 4)));
  });
});

describe('re-chunking', () => {
  test('random chunking cuts at arbitrary byte offsets and never changes the bytes', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 24 }),
        (seed, min, extra) => {
          const steps = plan({ chunking: { mode: 'random', minBytes: min, maxBytes: min + extra } }, seed);
          const writes = writesOf(steps);
          expect(Buffer.concat(writes)).toEqual(CLEAN);
          for (const w of writes.slice(0, -1)) {
            expect(w.length).toBeGreaterThanOrEqual(min);
            expect(w.length).toBeLessThanOrEqual(min + extra);
          }
          expect(decodeChunks(writes).message).toEqual(SAMPLE);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('fixed chunking writes chunks of exactly that size, the last one shorter', () => {
    const writes = writesOf(plan({ chunking: { mode: 'fixed', size: 5 } }));
    expect(writes.slice(0, -1).every((w) => w.length === 5)).toBe(true);
    expect(writes.at(-1)!.length).toBeLessThanOrEqual(5);
    expect(Buffer.concat(writes)).toEqual(CLEAN);
  });

  test('splitUtf8 cuts inside every multi-byte UTF-8 character', () => {
    const writes = writesOf(plan({ splitUtf8: true }));
    const leads = [...CLEAN].filter((b) => b >= 0xc0).length;
    const cutsInside = writes.slice(0, -1).filter((w) => w.at(-1)! >= 0xc0).length;
    expect(leads).toBeGreaterThan(5);
    expect(cutsInside).toBe(leads);
    expect(decodeChunks(writes).message).toEqual(SAMPLE);
  });

  test('splitCrLf cuts between the CR and the LF of every CRLF: still one line terminator each', () => {
    const writes = writesOf(
      plan({ lineEnding: 'crlf', splitCrLf: true, chunking: { mode: 'fixed', size: 64 } }),
    );
    const crlfs = Buffer.concat(writes).toString('latin1').split('\r\n').length - 1;
    const cutsBetween = writes.slice(0, -1).filter((w) => w.at(-1) === 0x0d).length;
    expect(crlfs).toBe(3 * N);
    expect(cutsBetween).toBe(crlfs);
    expect(decodeChunks(writes).message).toEqual(SAMPLE);
  });

  test('framesDone counts the scripted frames whose last byte has been written', () => {
    const steps = plan({ chunking: { mode: 'random', minBytes: 1, maxBytes: 40 }, pings: { rate: 0.5 } }, 11);
    let bytes = Buffer.alloc(0);
    for (const s of steps) {
      if (s.kind !== 'write') continue;
      bytes = Buffer.concat([bytes, Buffer.from(s.data)]);
      const complete = decodeChunks([bytes]).frames.filter((f) => f.event !== 'ping').length;
      expect(s.framesDone).toBe(complete);
    }
  });
});

describe('framing dialects', () => {
  test.each(['crlf', 'cr'] as const)('the %s dialect decodes to the same events', (lineEnding) => {
    const bytes = bytesOf(plan({ lineEnding }));
    const text = bytes.toString('utf8');
    expect(text.includes('\n')).toBe(lineEnding === 'crlf');
    expect(text.includes('\r')).toBe(true);
    expect(decodeChunks([bytes]).message).toEqual(SAMPLE);
  });

  test('a BOM starts the stream and is stripped by the decoder', () => {
    const bytes = bytesOf(plan({ bom: true }));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(decodeChunks([bytes]).message).toEqual(SAMPLE);
  });

  test('multi-line data and id lines decode to the same events', () => {
    const bytes = bytesOf(plan({ multiLineData: true, idLines: true }));
    expect(
      bytes
        .toString()
        .split('\n')
        .filter((l) => l.startsWith('data:')).length,
    ).toBeGreaterThan(2 * N);
    const decoded = decodeChunks([bytes]);
    expect(decoded.frames.map((f) => f.id)).toEqual(EVENTS.map((_, i) => String(i)));
    expect(decoded.message).toEqual(SAMPLE);
  });
});

describe('injected frames', () => {
  test('a ping at gap 0 comes before message_start; pings leave the message unchanged', () => {
    const decoded = decodeChunks(writesOf(plan({ pings: { at: [0, 3, N] } })));
    expect(decoded.frames[0]).toMatchObject({ event: 'ping', data: '{"type":"ping"}' });
    expect(decoded.frames.filter((f) => f.event === 'ping')).toHaveLength(3);
    expect(decoded.frames.at(-1)?.event).toBe('ping');
    expect(decoded.message).toEqual(SAMPLE);
  });

  test('a gap listed n times gets n pings in a row (the several pings in a row stream.pings claims)', () => {
    const decoded = decodeChunks(writesOf(plan({ pings: { at: [2, 2, 2, 5] } })));
    const events = decoded.frames.map((f) => f.event);
    expect(events.filter((e) => e === 'ping')).toHaveLength(4);
    expect(events.slice(2, 5)).toEqual(['ping', 'ping', 'ping']);
    expect(events[5]).not.toBe('ping');
    expect(decoded.message).toEqual(SAMPLE);
  });

  test('random pings are reproducible from the seed', () => {
    const count = (seed: number) =>
      decodeChunks(writesOf(plan({ pings: { rate: 0.5 } }, seed))).frames.filter((f) => f.event === 'ping')
        .length;
    expect(count(5)).toBe(count(5));
    expect(count(5)).toBeGreaterThan(0);
  });

  test('comments are ignored by the decoder', () => {
    const decoded = decodeChunks(writesOf(plan({ comments: { at: [0, 2], rate: 0.3, text: 'hello' } })));
    expect(decoded.comments.length).toBeGreaterThanOrEqual(2);
    expect(decoded.comments[0]).toBe('hello');
    expect(decoded.message).toEqual(SAMPLE);
  });

  test('unknown event names are injected with matching data types', () => {
    const decoded = decodeChunks(writesOf(plan({ unknownEvents: { at: [1], name: 'future_event' } })));
    expect(decoded.frames[1]).toMatchObject({ event: 'future_event', data: '{"type":"future_event"}' });
    expect(decoded.message).toEqual(SAMPLE);
  });
});

describe('timing', () => {
  test('a delay number pauses before every frame, after flushing what came before', () => {
    const steps = plan({ delayMs: 5 });
    expect(steps.filter((s) => s.kind === 'wait')).toHaveLength(N);
    steps.forEach((s, i) => {
      if (s.kind === 'wait' && i > 0) expect(steps[i - 1]!.kind).toBe('write');
    });
    expect(decodeChunks(writesOf(steps)).message).toEqual(SAMPLE);
  });

  test('a delay schedule pauses before the frames it names only', () => {
    const steps = plan({ delayMs: [0, 0, 30] });
    const waits = steps.flatMap((s, i) => (s.kind === 'wait' ? [{ i, ms: s.ms }] : []));
    expect(waits).toHaveLength(1);
    expect(waits[0]!.ms).toBe(30);
    expect(steps[waits[0]!.i - 1]).toMatchObject({ kind: 'write', framesDone: 2 });
  });

  test('a stall after frame N without ms pauses until the client leaves, after N frames', () => {
    const steps = plan({ stall: { afterFrame: 3 } });
    const at = steps.findIndex((s) => s.kind === 'stall');
    expect(steps[at - 1]).toMatchObject({ kind: 'write', framesDone: 3 });
    expect(steps.at(-1)?.kind).toBe('end');
  });

  test('a stall with ms is a pause with keep-alive pings when it is longer than keepAliveMs', () => {
    const steps = plan({ stall: { afterFrame: 2, ms: 500 }, keepAliveMs: 100, lineEnding: 'crlf' });
    const wait = steps.find((s) => s.kind === 'wait');
    expect(wait).toEqual({
      kind: 'wait',
      ms: 500,
      keepAlive: { everyMs: 100, data: 'event: ping\r\ndata: {"type":"ping"}\r\n\r\n' },
    });
    expect(plan({ delayMs: 50, keepAliveMs: 100 }).some((s) => s.kind === 'wait' && s.keepAlive)).toBe(false);
  });

  test("the service's keep-alive interval applies when the plan has none", () => {
    const steps = planStream(EVENTS, { stall: { afterFrame: 1 } }, 1, { keepAliveMs: 250 });
    expect(steps.find((s) => s.kind === 'stall')).toMatchObject({ keepAlive: { everyMs: 250 } });
  });
});

describe('cuts and errors', () => {
  test('disconnect after frame N writes exactly N frames, then disconnects without ending', () => {
    const steps = plan({ disconnectAfterFrame: 4, chunking: { mode: 'random' } });
    expect(steps.at(-1)).toEqual({ kind: 'disconnect' });
    expect(kinds(steps)).not.toContain('end');
    const decoded = decodeChunks(writesOf(steps));
    expect(decoded.frames).toHaveLength(4);
    expect(decoded.unterminated).toBe('');
    expect(decoded.error?.message).toMatch(/truncated/);
  });

  test('disconnect after frame 0 writes nothing', () => {
    expect(plan({ disconnectAfterFrame: 0 })).toEqual([{ kind: 'disconnect' }]);
  });

  test('an error event as the first frame carries the real body and request_id, then the stream ends', () => {
    const steps = plan({ errorEvent: { atFrame: 0 } });
    const decoded = decodeChunks(writesOf(steps));
    expect(decoded.frames).toHaveLength(1);
    expect(decoded.frames[0]!.event).toBe('error');
    expect(JSON.parse(decoded.frames[0]!.data)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: 'req_test',
    });
    expect(steps.at(-1)).toEqual({ kind: 'end' });
  });

  test('an error event at frame N follows N frames and has the type asked for', () => {
    const decoded = decodeChunks(
      writesOf(plan({ errorEvent: { atFrame: 5, errorType: 'api_error', message: 'x' } })),
    );
    expect(decoded.frames.map((f) => f.event)).toEqual([...EVENTS.slice(0, 5).map((e) => e.type), 'error']);
    expect(decoded.error?.message).toMatch(/api_error: x/);
  });

  test('an error event in place of message_stop follows message_delta and ends the stream: nothing after it', () => {
    const steps = plan({ errorEvent: { atFrame: N - 1 } });
    const decoded = decodeChunks(writesOf(steps));
    expect(decoded.frames.map((f) => f.event)).toEqual([...EVENTS.slice(0, -1).map((e) => e.type), 'error']);
    expect(decoded.frames.at(-2)?.event).toBe('message_delta');
    expect(steps.at(-1)).toEqual({ kind: 'end' });
  });

  test('omitMessageStop leaves out message_stop and ends the response normally', () => {
    const steps = plan({ omitMessageStop: true });
    const decoded = decodeChunks(writesOf(steps));
    expect(decoded.frames.map((f) => f.event)).toEqual(EVENTS.slice(0, -1).map((e) => e.type));
    expect(decoded.error?.message).toMatch(/truncated/);
    expect(steps.at(-1)).toEqual({ kind: 'end' });
  });
});

describe('malformed frames', () => {
  const frameAt = (faults: FaultPlan, i: number) => decodeChunks(writesOf(plan(faults))).frames[i]!;

  test('invalid-json data does not parse', () => {
    const f = frameAt({ malformed: [{ atFrame: 2, kind: 'invalid-json' }] }, 2);
    expect(f.event).toBe('content_block_delta');
    expect(() => JSON.parse(f.data)).toThrow();
  });

  test('type-mismatch names another event than the data type', () => {
    const f = frameAt({ malformed: [{ atFrame: 2, kind: 'type-mismatch' }] }, 2);
    expect(JSON.parse(f.data).type).toBe('content_block_delta');
    expect(f.event).toBe('content_block_stop');
    const named = frameAt({ malformed: [{ atFrame: 0, kind: 'type-mismatch', eventName: 'ping' }] }, 0);
    expect(named.event).toBe('ping');
  });

  test('no-event-line sends a data-only frame', () => {
    const f = frameAt({ malformed: [{ atFrame: 1, kind: 'no-event-line' }] }, 1);
    expect(f.event).toBeUndefined();
    expect(JSON.parse(f.data).type).toBe('content_block_start');
  });

  test('a garbage line inside a frame is a field a decoder ignores', () => {
    const bytes = bytesOf(plan({ malformed: [{ atFrame: 1, kind: 'garbage-line' }] }));
    expect(bytes.toString()).toContain('\nthis line is not an SSE field\n');
    expect(decodeChunks([bytes]).message).toEqual(SAMPLE);
  });
});

test('templated frames and batches equal the encoded canonical events, in every dialect', () => {
  const block = fc.oneof(
    fc.record(
      {
        type: fc.constant('text' as const),
        text: fc.string({ unit: 'binary' }),
        citations: fc.constant(null),
      },
      { requiredKeys: ['type', 'text'] },
    ),
    fc.record({
      type: fc.constant('tool_use' as const),
      id: fc.string({ minLength: 1 }),
      name: fc.string({ minLength: 1 }),
      input: fc.dictionary(fc.string(), fc.jsonValue()),
    }),
  );
  fc.assert(
    fc.property(
      fc.array(block, { maxLength: 4 }),
      fc.array(fc.option(fc.array(fc.integer({ min: -5, max: 60 })), { nil: undefined }), { maxLength: 4 }),
      (content, splits) => {
        const message = { ...SAMPLE, content };
        const frames = [...framesOfMessage(message, splits)].map((f) =>
          'event' in f ? [f.event, f.data] : f,
        );
        const events = eventsOfMessage(message, splits);
        expect(frames).toEqual(events.map((e) => [e.type, JSON.stringify(e)]));
        const eol = (['\n', '\r\n', '\r'] as const)[content.length % 3]!;
        const batches = [...messageBatches(message, splits, eol, 1 + (content.length % 5))];
        expect(Buffer.concat(batches.map((b) => b.bytes))).toEqual(
          Buffer.from(events.map((e) => encodeEvent(e, eol)).join('')),
        );
        expect(batches.reduce((n, b) => n + b.frames, 0)).toBe(events.length);
      },
    ),
    { numRuns: 100 },
  );
});
