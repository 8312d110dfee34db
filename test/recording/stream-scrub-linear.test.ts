import { describe, expect, test } from 'vitest';
import { createEventStreamScrubber } from '../../src/recording/index.js';
import { KEY } from './secret-forms.js';

// The event-stream scrubber reads every content_block_delta while a key is set, so a target
// could make it work quadratically with one event: 20,000 levels of nesting (45 s, 1.4 GB),
// 60,000 empty data lines behind a long delta (9 s), or 80,000 backslashes (4 s). Each shape is
// scrubbed at a size and at four times it, side by side: about four times the time when linear,
// sixteen when quadratic. A ratio holds on a loaded machine, where a bound in ms does not.

const delta = (json: string) => `event: content_block_delta\ndata: ${json}\n\n`;
const textDelta = (text: string, extra = '') =>
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n${extra}\n`;

/** The stream scrubbed, and the ms it took (the best of five: a loaded machine only adds). */
function scrubbed(events: readonly string[]): { out: string; ms: number } {
  const chunks = events.map((e) => Buffer.from(e));
  let out = '';
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 5; run++) {
    const scrubber = createEventStreamScrubber([KEY]);
    const t0 = performance.now();
    const kept = [...chunks.flatMap((c) => scrubber.push(c)), ...scrubber.end()];
    best = Math.min(best, performance.now() - t0);
    out = Buffer.concat(kept).toString('utf8');
  }
  return { out, ms: best };
}

/**
 * The times of `stream(n)` and `stream(4n)` scrubbed, each `copies` times over in one stream,
 * and what each came to. Events stay small, each below the size (about 128 KB, or arrays of
 * some 16,000 elements) past which V8 allocates apart and each step costs several times
 * more: a step in the constant, no growth in n, that a ratio would read as one. They are
 * repeated instead, so that each time is long enough to measure.
 */
function sideBySide(stream: (n: number) => string[], n: number, copies: number) {
  const repeated = (m: number) => Array.from({ length: copies }, () => stream(m)).flat();
  scrubbed(repeated(n)); // warms the code up, so that neither measured size pays for it
  const small = scrubbed(repeated(n));
  const large = scrubbed(repeated(4 * n));
  return { small, large, ratio: large.ms / small.ms, says: `${n}: ${small.ms} ms; ${4 * n}: ${large.ms} ms` };
}

describe('createEventStreamScrubber: linear time on hostile events', () => {
  test('deep nesting: n levels holding n strings', () => {
    const stream = (n: number) => [
      delta(
        `{"type":"content_block_delta","index":0,"delta":${'['.repeat(n)}${Array(n).fill('"a"').join(',')}${']'.repeat(n)}}`,
      ),
    ];
    const { small, large, ratio, says } = sideBySide(stream, 4_000, 1);
    expect(small.out).toBe(stream(4_000)[0]);
    expect(large.out).toBe(stream(16_000)[0]);
    expect(ratio, says).toBeLessThan(10);
  }, 120_000);

  test('many data lines behind a long delta that begins a key the next delta completes', () => {
    const half = KEY.length / 2;
    const stream = (n: number) => [
      textDelta(`${'x'.repeat(n)}${KEY.slice(0, half)}`, 'data:\n'.repeat(n)),
      textDelta(`${KEY.slice(half)} done`),
    ];
    const { small, large, ratio, says } = sideBySide(stream, 1_500, 24);
    for (const { out } of [small, large]) {
      expect(out).not.toContain(KEY.slice(0, half));
      expect(out).not.toContain(KEY.slice(half));
      expect(out).toContain(' done');
    }
    expect(ratio, says).toBeLessThan(10);
  }, 120_000);

  test('a long run of backslashes', () => {
    const stream = (n: number) => [textDelta(`${'\\'.repeat(n)}x`)];
    const { small, large, ratio, says } = sideBySide(stream, 4_000, 24);
    expect(small.out).toBe(stream(4_000)[0]!.repeat(24));
    expect(large.out).toBe(stream(16_000)[0]!.repeat(24));
    expect(ratio, says).toBeLessThan(10);
  }, 120_000);

  test('strings nested past the depth a path names still have a key spread over them masked', () => {
    const deep = (text: string) =>
      delta(
        JSON.stringify({
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'x', a: [[[[[[[[[[{ b: [text] }]]]]]]]]]] },
        }),
      );
    const { out } = scrubbed([deep(`key: ${KEY.slice(0, 9)}`), deep(`${KEY.slice(9)}!`)]);
    expect(out).not.toContain(KEY.slice(0, 9));
    expect(out).not.toContain(KEY.slice(9));
    expect(out).toContain('key: ');
    expect(out).toContain('!"');
  });
});
