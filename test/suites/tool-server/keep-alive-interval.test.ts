import { afterEach, describe, expect, test, vi } from 'vitest';
import { CheckFailure } from '../../../src/harness/check.js';
import { keepAliveChecks } from '../../../src/suites/tool-server/checks/keep-alive.js';
import type { ToolServerCtx } from '../../../src/suites/tool-server/context.js';
import { KEEP_ALIVE_LIMIT, KEEP_ALIVE_WATCH_MS } from '../../../src/suites/tool-server/idle-stream.js';
import { keepAliveGap, keepAliveSettledAt } from '../../../src/suites/tool-server/rules.js';
import type { SseChannel } from '../../../src/suites/tool-server/sse-channel.js';

// "every 15 seconds" is judged on a whole interval between two keep-alives: a stream that beat
// once early in the watch, or every 30 s at a phase that put one beat early, passed before.

const WATCH = { fromMs: 0, toMs: KEEP_ALIVE_WATCH_MS };
const comments = (times: readonly number[]) => times.map((atMs) => ({ atMs, comment: true, data: '' }));

/** Beats every `everyMs` from `firstMs` on, as far as the watch reaches. */
const timer = (firstMs: number, everyMs: number) =>
  Array.from(
    { length: Math.ceil((KEEP_ALIVE_WATCH_MS - firstMs) / everyMs) + 1 },
    (_, i) => firstMs + i * everyMs,
  );

/** The verdict as the check reaches it on the whole watch: settled early, or judged to its end. */
function verdict(times: readonly number[]): { pass: boolean; settledAt: number | undefined } {
  const frames = comments(times);
  const settledAt = keepAliveSettledAt(frames, WATCH, KEEP_ALIVE_LIMIT);
  const gap = keepAliveGap(frames, { fromMs: 0, toMs: settledAt ?? WATCH.toMs }, KEEP_ALIVE_LIMIT);
  return { pass: gap === undefined, settledAt };
}

describe('keep-alive verdict on a whole interval (pure)', () => {
  test('one early comment and no more settles nothing, and fails at the end of the watch', () => {
    for (const at of [1_000, 5_000, 10_000, 15_000]) {
      expect(keepAliveSettledAt(comments([at]), WATCH, KEEP_ALIVE_LIMIT)).toBeUndefined();
      expect(verdict([at]).pass).toBe(false);
    }
  });

  test('one global 30 s timer fails at every phase of the stream against it', () => {
    for (let phase = 0; phase < 30_000; phase += 250) {
      expect({ phase, pass: verdict(timer(phase, 30_000)).pass }).toEqual({ phase, pass: false });
    }
  });

  test('a 15 s per-stream timer passes, settling at its second beat (with up to the tolerance of lag)', () => {
    for (const lag of [0, 1_000, 5_000]) {
      expect(verdict(timer(15_000 + lag, 15_000))).toEqual({ pass: true, settledAt: 30_000 + lag });
    }
  });

  test('a global 15 s timer passes at every phase, settled by 30 s', () => {
    for (let phase = 0; phase < 15_000; phase += 250) {
      const { pass, settledAt } = verdict(timer(phase, 15_000));
      expect({ phase, pass }).toEqual({ phase, pass: true });
      expect(settledAt).toBeLessThanOrEqual(30_000);
    }
  });

  test('a first beat later than the limit settles a failure at once', () => {
    expect(keepAliveSettledAt(comments([21_000, 22_000]), WATCH, KEEP_ALIVE_LIMIT)).toBe(21_000);
    expect(verdict([21_000, 22_000]).pass).toBe(false);
  });
});

/** A stream opened at 0 with its endpoint at 0; frames show once the (fake) clock reaches them. */
function fakeStream(times: readonly number[]): SseChannel {
  const frames: { at: number; event: string | undefined; data: string; comment?: true }[] = [
    { at: 0, event: 'endpoint', data: '/messages?sessionId=1' },
    ...times.map((at) => ({ at, event: undefined, data: 'keep-alive', comment: true as const })),
  ];
  const seen = () => frames.filter((f) => f.at <= performance.now());
  return {
    transport: 'sse',
    peer: { label: 'idle' },
    openedAt: 0,
    get frames() {
      return seen();
    },
    gone: () => undefined,
    frameItems: () =>
      seen().map((f) => ({
        atMs: f.at,
        data: f.data,
        ...(f.comment ? { comment: true } : { event: f.event }),
      })),
  } as unknown as SseChannel;
}

describe('tool-server.sse.keep-alive on a simulated clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs the check against a stream beating at `times`; its outcome and when it ended. */
  async function run(times: readonly number[]): Promise<{ outcome: unknown; endedAt: number }> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'], now: 0 });
    const check = keepAliveChecks[0]!;
    const ctx = {
      transport: 'sse',
      idle: { watched: async () => fakeStream(times) },
    } as unknown as ToolServerCtx;
    const env = { signal: new AbortController().signal } as Parameters<typeof check.run>[1];
    let endedAt = -1;
    const done = check.run(ctx, env).then(
      () => {
        endedAt = performance.now();
        return 'pass';
      },
      (e: unknown) => {
        endedAt = performance.now();
        return e;
      },
    );
    await vi.advanceTimersByTimeAsync(KEEP_ALIVE_WATCH_MS + 1_000);
    return { outcome: await done, endedAt };
  }

  test('a single comment 5 s in fails', async () => {
    const { outcome } = await run([5_000]);
    expect(outcome).toBeInstanceOf(CheckFailure);
  });

  test('a 30 s timer with its first beat 10 s in fails', async () => {
    const { outcome } = await run([10_000, 40_000]);
    expect(outcome).toBeInstanceOf(CheckFailure);
    // Settled once the open gap passed the limit, before the second beat came.
    expect((outcome as CheckFailure).message).toMatch(
      /no keep-alive for 20\d{3} ms \(from 10000 ms after it opened/,
    );
  });

  test('a 15 s per-stream timer passes at its second beat', async () => {
    const { outcome, endedAt } = await run([15_000, 30_000, 45_000]);
    expect(outcome).toBe('pass');
    expect(endedAt).toBeGreaterThanOrEqual(30_000);
    expect(endedAt).toBeLessThan(31_000);
  });

  test('a silent stream fails once the gap is over the limit, not at the end of the watch', async () => {
    const { outcome, endedAt } = await run([]);
    expect(outcome).toBeInstanceOf(CheckFailure);
    expect(endedAt).toBeLessThan(21_000);
  });
});
