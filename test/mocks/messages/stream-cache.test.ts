import { expect, test } from 'vitest';
import { EncodedStreamCache, planStream, type StreamStep } from '../../../src/mocks/messages/index.js';
import { eventsOfMessage } from '../../../src/protocol/messages/index.js';
import { bytesOf, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

const CLEAN = bytesOf(
  planStream(eventsOfMessage(SAMPLE, SAMPLE_SPLITS), undefined, 1, { framesPerWrite: 4 }),
);
const serve = (cache: EncodedStreamCache, message = SAMPLE, splits = SAMPLE_SPLITS): StreamStep[] => [
  ...cache.steps(message, splits, '\n', 4),
];

test('a message served a second time is kept, and every serving writes the same bytes', () => {
  const cache = new EncodedStreamCache(1 << 20);
  const first = serve(cache);
  expect(cache.size).toBe(0);
  const second = serve(cache);
  expect(cache.size).toBe(1);
  expect(cache.usedBytes).toBe(CLEAN.length);
  const third = serve(cache);
  for (const steps of [first, second, third]) {
    expect(bytesOf(steps)).toEqual(CLEAN);
    expect(steps.filter((s) => s.kind === 'write').map((s) => s.framesDone)).toEqual([4, 8, 12, 16, 17]);
    expect(steps.at(-1)).toEqual({ kind: 'end' });
  }
});

test('another line ending, batch size or splits object is another stream', () => {
  const cache = new EncodedStreamCache(1 << 20);
  serve(cache);
  serve(cache);
  const crlf = [
    ...cache.steps(SAMPLE, SAMPLE_SPLITS, '\r\n', 4),
    ...cache.steps(SAMPLE, SAMPLE_SPLITS, '\r\n', 4),
  ];
  expect(bytesOf(crlf).toString()).toContain('\r\n');
  serve(cache, SAMPLE, [[1], [2]]);
  expect(cache.size).toBe(3);
});

test('a stream abandoned before its end is not kept', () => {
  const cache = new EncodedStreamCache(1 << 20);
  serve(cache);
  const steps = cache.steps(SAMPLE, SAMPLE_SPLITS, '\n', 4);
  steps.next();
  steps.return(undefined);
  expect(cache.size).toBe(0);
});

test('a stream over half the budget is never kept', () => {
  const small = new EncodedStreamCache(CLEAN.length);
  serve(small);
  serve(small);
  expect(small.size).toBe(0);
});

test('past the budget the least recently used stream goes first', () => {
  const cache = new EncodedStreamCache(CLEAN.length * 2.5);
  const other = { ...SAMPLE };
  const third = { ...SAMPLE };
  const firstWrite = (steps: StreamStep[]) => steps.find((s) => s.kind === 'write')?.data;
  serve(cache);
  const kept = firstWrite(serve(cache));
  serve(cache, other);
  serve(cache, other);
  expect(firstWrite(serve(cache))).toBe(kept); // a hit: SAMPLE is now the most recently used
  serve(cache, third);
  serve(cache, third); // over budget: `other` goes
  expect(cache.size).toBe(2);
  expect(firstWrite(serve(cache))).toBe(kept);
  const again = firstWrite(serve(cache, other));
  expect(firstWrite(serve(cache, other))).toBe(again); // kept anew: a miss before
});

test('a budget of 0 keeps nothing', () => {
  const cache = new EncodedStreamCache(0);
  for (let i = 0; i < 3; i++) expect(bytesOf(serve(cache))).toEqual(CLEAN);
  expect(cache.size).toBe(0);
});
