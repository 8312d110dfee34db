import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BEAT_RESOLUTION_MS, KeepAliveBeats } from '../../../src/suites/tool-server/keep-alive-beats.js';
import { keepAliveGap } from '../../../src/suites/tool-server/rules.js';

interface Beat {
  readonly at: number;
}

/** The beats as keepAliveGap reads frames: comments at their times. */
const asFrames = (beats: readonly Beat[]) => beats.map((b) => ({ atMs: b.at, comment: true, data: '' }));

/** The first `kept` beats go to the frames, the rest past them; returns what the judgement sees. */
function judged(times: readonly number[], kept: number): { view: Beat[]; past: Beat[] } {
  const beats = new KeepAliveBeats<Beat>();
  const all = times.map((at) => ({ at }));
  for (const b of all.slice(0, kept)) beats.keptElsewhere(b);
  for (const b of all.slice(kept)) beats.see(b);
  const past = beats.view();
  return { view: [...all.slice(0, kept), ...past], past };
}

describe('KeepAliveBeats', () => {
  /** Increasing times: runs of beats close together, and gaps around and past the limits tried. */
  const times = fc
    .array(fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 900, max: 9000 })), {
      maxLength: 300,
    })
    .map((steps) => {
      let at = 0;
      return steps.map((s) => {
        at += s;
        return at;
      });
    });
  const split = (ts: readonly number[], k: number) => (ts.length === 0 ? 0 : k % (ts.length + 1));

  test('every gap of a second or more between beats is in view, both ends exact, and so is the latest beat', () => {
    const gaps = (ts: readonly number[]) =>
      ts.flatMap((t, i) => (i > 0 && t - ts[i - 1]! >= BEAT_RESOLUTION_MS ? [[ts[i - 1], t]] : []));
    fc.assert(
      fc.property(times, fc.nat(), (ts, k) => {
        const view = judged(ts, split(ts, k)).view.map((b) => b.at);
        expect(gaps(view)).toEqual(gaps(ts));
        expect(view.at(-1)).toBe(ts.at(-1));
      }),
      { seed: 20261205, numRuns: 1000 },
    );
  });

  test('the keep-alive verdict and the longest gap on any window are those of every beat kept', () => {
    fc.assert(
      fc.property(
        times,
        fc.nat(),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: BEAT_RESOLUTION_MS, max: 6000 }),
        fc.integer({ min: 0, max: 1000 }),
        (ts, k, from, length, intervalMs, toleranceMs) => {
          const { view } = judged(ts, split(ts, k));
          const window = { fromMs: from, toMs: from + length };
          const limit = { intervalMs, toleranceMs };
          expect(keepAliveGap(asFrames(view), window, limit)).toEqual(
            keepAliveGap(asFrames(ts.map((at) => ({ at }))), window, limit),
          );
        },
      ),
      { seed: 20261205, numRuns: 2000 },
    );
  });

  test('a stream beating every 10 ms keeps at most two beats a second past its frames, the latest among them', () => {
    const times = Array.from({ length: 6000 }, (_, i) => i * 10);
    const { past } = judged(times, 100);
    expect(past.length).toBeLessThanOrEqual(2 * 60 + 2);
    expect(past.length).toBeGreaterThan(0);
    expect(past.at(-1)?.at).toBe(times.at(-1));
  });

  test('both ends of a long gap are kept, exactly', () => {
    const times = [0, 10, 20, 30, 40, 20_040, 20_050];
    const { past } = judged(times, 1);
    expect(past.map((b) => b.at)).toContain(40);
    expect(past.map((b) => b.at)).toContain(20_040);
    expect(
      keepAliveGap(asFrames(past), { fromMs: 0, toMs: 20_050 }, { intervalMs: 15_000, toleranceMs: 0 }),
    ).toEqual({
      gapMs: 20_000,
      afterMs: 40,
    });
  });

  test('past its cap it keeps no more beats', () => {
    const beats = new KeepAliveBeats<Beat>(1000, 3);
    for (let i = 0; i < 10; i++) beats.see({ at: i * 2000 });
    expect(beats.view().map((b) => b.at)).toEqual([0, 2000, 4000, 18_000]);
  });
});
