import { describe, expect, test } from 'vitest';
import { framesOfMessage, messageBatches } from '../../../src/mocks/messages/source-frames.js';
import { type DeltaSplits, eventsOfMessage, type Message } from '../../../src/protocol/messages/index.js';
import { encodeEvent, type LineEnding } from '../../../src/protocol/sse/index.js';
import { SAMPLE } from './helpers.js';

/** What the mock must send: each canonical event encoded as one frame, in UTF-8. */
const canonical = (message: Message, splits: DeltaSplits, eol: LineEnding) =>
  Buffer.from(
    eventsOfMessage(message, splits)
      .map((e) => encodeEvent(e, eol))
      .join(''),
    'utf8',
  );

/** The first offset at which two byte strings differ, -1 when they are equal (quick on megabytes). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (Buffer.compare(a, b) === 0) return -1;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function batched(message: Message, splits: DeltaSplits, eol: LineEnding, per: number) {
  // Every batch is kept before any is read: a later batch must not overwrite an earlier one.
  const batches = [...messageBatches(message, splits, eol, per)];
  return { bytes: Buffer.concat(batches.map((b) => b.bytes)), frames: batches.map((b) => b.frames) };
}

const TRICKY = [
  'say "hi" \\ a\\b \\" ',
  'tab\there\nnew line\r\nbell\u0007 nul\u0000 esc\u001b del\u007f ',
  'ünïcode — 你好 \uffff ',
  'emoji 👋🏽 👨‍👩‍👧 ',
  'lone \ud83d high, lone \udc4b low, reversed \udc4b\ud83d ',
  'separators \u2028 and \u2029 ',
].join('');

const trickyMessage = (text: string): Message => ({
  ...SAMPLE,
  content: [
    { type: 'text', text },
    { type: 'tool_use', id: 'toolu_x', name: 'bash', input: { command: text, n: [1, '"\\'] } },
  ],
});

/** An offset at every unit: one inside a pair cuts before it, so every character is a delta. */
const everyUnit = (length: number) => Array.from({ length: length - 1 }, (_, i) => i + 1);

describe('message batches are the UTF-8 bytes of the encoded canonical events', () => {
  const message = trickyMessage(TRICKY);
  const json = JSON.stringify(message.content[1]?.type === 'tool_use' ? message.content[1].input : null);
  test.each([
    ['\n', 1],
    ['\n', 64],
    ['\r\n', 3],
    ['\r', 1000],
  ] as const)(
    'quotes, backslashes, control characters, emoji, lone surrogates and U+2028 (eol %j, %i a batch)',
    (eol, per) => {
      for (const splits of [[], [[5, 17, 40, 41, 200]], [everyUnit(TRICKY.length), everyUnit(json.length)]]) {
        const { bytes, frames } = batched(message, splits, eol, per);
        expect(bytes).toEqual(canonical(message, splits, eol));
        expect(frames.reduce((a, b) => a + b, 0)).toBe(eventsOfMessage(message, splits).length);
        expect(frames.slice(0, -1).every((f) => f === per)).toBe(true);
      }
    },
  );

  test('a long stream spread over several slabs, and a batch larger than a slab', () => {
    const text = `${TRICKY}${'word "q" \\ é 👋 '.repeat(6000)}`;
    const long = trickyMessage(text);
    const splits = [Array.from({ length: 20_000 }, (_, i) => 1 + i * 7)];
    expect(firstDifference(batched(long, splits, '\n', 64).bytes, canonical(long, splits, '\n'))).toBe(-1);
    expect(firstDifference(batched(long, splits, '\r\n', 5000).bytes, canonical(long, splits, '\r\n'))).toBe(
      -1,
    );
  });

  test('pieces longer than 64 units, quoted by JSON.stringify instead, are exact too', () => {
    const text = `${'\u0001"é👋\ud83d'.repeat(20_000)}`;
    const long = trickyMessage(text);
    // Pieces of 63 to 66 units: either side of the threshold, offsets inside pairs too.
    const around64 = Array.from({ length: 1000 }, (_, i) => 64 * (i + 1) + (i % 4) - 1);
    for (const splits of [[], [[3, 70_001]], [around64, around64]]) {
      expect(firstDifference(batched(long, splits, '\n', 64).bytes, canonical(long, splits, '\n'))).toBe(-1);
    }
  });
});

test('frames of a message, one by one, are the canonical events as event name and JSON text', () => {
  const message = trickyMessage(TRICKY);
  const splits = [everyUnit(TRICKY.length)];
  const frames = [...framesOfMessage(message, splits)];
  expect(frames).toEqual(
    eventsOfMessage(message, splits).map((e) => ({
      event: e.type,
      data: JSON.stringify(e),
      singleLine: true,
    })),
  );
});
