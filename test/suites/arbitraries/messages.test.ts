import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeWithCallbacks } from '../../../src/fuzz/oracles/sse.js';
import { accumulate, eventsOfMessage, Message } from '../../../src/protocol/messages/index.js';
import {
  arbDeltaSplits,
  arbMessage,
  arbStreamCase,
  chunkBytes,
  serializeStreamCase,
  streamedPayloadOf,
} from '../../../src/suites/arbitraries/messages.js';

const RUNS = { numRuns: 200, seed: 61 };

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

describe('arbMessage', () => {
  test('produces messages of the buffered response shape that survive JSON unchanged', () => {
    fc.assert(
      fc.property(arbMessage(), (m) => {
        expect(Message.parse(m)).toEqual(m);
        // Strict: plain objects only (no null prototypes), no -0, no undefined fields.
        expect(isDeepStrictEqual(JSON.parse(JSON.stringify(m)), m)).toBe(true);
        expect(m.id).toMatch(/^msg_[A-Za-z0-9]+$/);
        expect(m.content.length).toBeLessThanOrEqual(4);
      }),
      RUNS,
    );
  });

  test('stop_reason is tool_use exactly when a tool_use block exists; stop_sequence only with stop_sequence', () => {
    fc.assert(
      fc.property(arbMessage(), (m) => {
        const usesTools = m.content.some((b) => b.type === 'tool_use');
        expect(m.stop_reason === 'tool_use').toBe(usesTools);
        expect(m.stop_sequence !== null).toBe(m.stop_reason === 'stop_sequence');
        if (m.stop_sequence !== null) expect(m.stop_sequence).not.toBe('');
      }),
      RUNS,
    );
  });

  test('tool_use ids are unique toolu_ identifiers and names fit the real API pattern', () => {
    fc.assert(
      fc.property(arbMessage({ maxBlocks: 8 }), (m) => {
        const tools = m.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
        expect(new Set(tools.map((t) => t.id)).size).toBe(tools.length);
        for (const t of tools) {
          expect(t.id).toMatch(/^toolu_[A-Za-z0-9]+$/);
          expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,128}$/);
          if (t.name === 'bash') expect(typeof t.input.command).toBe('string');
        }
      }),
      RUNS,
    );
  });

  test('texts are well-formed Unicode and numbers in tool inputs are finite and never -0', () => {
    const numbers = (v: unknown): number[] =>
      typeof v === 'number'
        ? [v]
        : v !== null && typeof v === 'object'
          ? Object.values(v).flatMap(numbers)
          : [];
    fc.assert(
      fc.property(arbMessage(), (m) => {
        for (const block of m.content) {
          const payload = streamedPayloadOf(block);
          // A lone surrogate would not survive UTF-8.
          expect(
            new TextDecoder('utf-8', { ignoreBOM: true }).decode(new TextEncoder().encode(payload)),
          ).toBe(payload);
          if (block.type === 'tool_use') {
            for (const n of numbers(block.input)) {
              expect(Number.isFinite(n) && !Object.is(n, -0)).toBe(true);
            }
          }
        }
      }),
      RUNS,
    );
  });

  test('over many cases it covers every block kind and stop reason, empty and multi-byte text', () => {
    const seen = new Set<string>();
    for (const m of fc.sample(arbMessage(), { numRuns: 400, seed: 62 })) {
      seen.add(`stop:${m.stop_reason}`);
      seen.add(`blocks:${Math.min(m.content.length, 2)}`);
      for (const b of m.content) {
        seen.add(b.type);
        if (b.type === 'text' && b.text === '') seen.add('empty text');
        if (b.type === 'text' && /[\u{10000}-\u{10FFFF}]/u.test(b.text)) seen.add('4-byte text');
        if (b.type === 'text' && b.text.length > 200) seen.add('long text');
      }
    }
    expect([...seen].sort()).toEqual(
      [
        '4-byte text',
        'blocks:0',
        'blocks:1',
        'blocks:2',
        'empty text',
        'long text',
        'stop:end_turn',
        'stop:max_tokens',
        'stop:stop_sequence',
        'stop:tool_use',
        'text',
        'tool_use',
      ].sort(),
    );
  });
});

describe('arbDeltaSplits', () => {
  test('gives sorted cuts inside each payload, never inside a surrogate pair', () => {
    const arbCase = arbMessage().chain((m) => arbDeltaSplits(m).map((splits) => ({ m, splits })));
    fc.assert(
      fc.property(arbCase, ({ m, splits }) => {
        expect(splits).toHaveLength(m.content.length);
        m.content.forEach((block, i) => {
          const payload = streamedPayloadOf(block);
          const cuts = splits[i] ?? [];
          expect([...cuts].sort((a, b) => a - b)).toEqual(cuts);
          expect(new Set(cuts).size).toBe(cuts.length);
          for (const c of cuts) {
            expect(c > 0 && c < payload.length).toBe(true);
            expect(isLowSurrogate(payload.charCodeAt(c))).toBe(false);
          }
        });
      }),
      RUNS,
    );
  });

  test('cuts every tool input so that its first fragment is not valid JSON alone (Events rule 3)', () => {
    const arbCase = arbMessage().chain((m) => arbDeltaSplits(m).map((splits) => ({ m, splits })));
    fc.assert(
      fc.property(arbCase, ({ m, splits }) => {
        const events = eventsOfMessage(m, splits);
        m.content.forEach((block, index) => {
          if (block.type !== 'tool_use') return;
          const first = events.find((e) => e.type === 'content_block_delta' && e.index === index);
          const fragment =
            first?.type === 'content_block_delta' && first.delta.type === 'input_json_delta'
              ? first.delta.partial_json
              : '';
          if (fragment === '{}') return;
          expect(() => JSON.parse(fragment)).toThrow(SyntaxError);
        });
      }),
      RUNS,
    );
  });
});

describe('stream cases', () => {
  test('a serialized case decodes and reduces to its message, with its pings and comments', () => {
    fc.assert(
      fc.property(arbStreamCase(), (c) => {
        const { events, bytes, chunks } = serializeStreamCase(c);
        const decoded = decodeWithCallbacks(chunks);
        expect(decoded.invalidLines).toEqual([]);
        expect(decoded.unterminated).toBe('');
        expect(decoded.comments).toHaveLength(c.comments.length);
        expect(decoded.frames.map((f) => f.event)).toEqual(events.map((e) => e.type));
        const parsed = decoded.frames.map((f) => JSON.parse(f.data));
        expect(parsed).toEqual(events);
        expect(parsed.filter((e) => e.type === 'ping')).toHaveLength(c.pingsBefore.length);
        expect(accumulate(parsed)).toEqual(c.message);
        expect(Buffer.concat(chunks)).toEqual(Buffer.from(bytes));
      }),
      { numRuns: 150, seed: 63 },
    );
  });

  test('a case uses its own line ending only, and cuts its bytes where it says', () => {
    fc.assert(
      fc.property(arbStreamCase(), (c) => {
        const { bytes, chunks } = serializeStreamCase(c);
        const text = Buffer.from(bytes).toString('latin1');
        if (c.lineEnding === '\n') expect(text).not.toContain('\r');
        if (c.lineEnding === '\r') expect(text).not.toContain('\n');
        if (c.lineEnding === '\r\n') expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
        const ends = chunks.map((_, i) => chunks.slice(0, i + 1).reduce((n, ch) => n + ch.length, 0));
        expect(ends.slice(0, -1)).toEqual(c.chunkCuts);
        expect(chunks.every((ch) => ch.length > 0)).toBe(true);
      }),
      { numRuns: 100, seed: 64 },
    );
  });

  test('pings go before the canonical event at each position, before message_start included', () => {
    const message = fc.sample(arbMessage({ maxBlocks: 0 }), { numRuns: 1, seed: 1 })[0]!;
    const { events } = serializeStreamCase({
      message,
      splits: [],
      pingsBefore: [0, 0, 2],
      lineEnding: '\n',
      comments: [],
      chunkCuts: [],
    });
    expect(events.map((e) => e.type)).toEqual([
      'ping',
      'ping',
      'message_start',
      'message_delta',
      'ping',
      'message_stop',
    ]);
  });

  test('serializing is pure: the same case gives the same bytes', () => {
    const c = fc.sample(arbStreamCase(), { numRuns: 1, seed: 65 })[0]!;
    expect(serializeStreamCase(c)).toEqual(serializeStreamCase(structuredClone(c)));
  });

  test('chunkBytes ignores cuts outside the bytes and never yields an empty chunk', () => {
    const b = new Uint8Array([1, 2, 3, 4]);
    expect(chunkBytes(b, [3, 0, 1, 1, 4, 9]).map((c) => [...c])).toEqual([[1], [2, 3], [4]]);
    expect(chunkBytes(new Uint8Array(), [1]).map((c) => c.length)).toEqual([0]);
  });
});
