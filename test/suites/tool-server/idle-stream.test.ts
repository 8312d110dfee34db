import { afterEach, describe, expect, test, vi } from 'vitest';
import { NotExercised, TargetGone } from '../../../src/harness/check.js';
import {
  IdleStream,
  KEEP_ALIVE_WATCH_MS,
  keepAliveVerdictSettled,
} from '../../../src/suites/tool-server/idle-stream.js';
import type { SseChannel } from '../../../src/suites/tool-server/sse-channel.js';

// The idle stream the keep-alive check watches, let go for a session a capped server refused.
// Times are on a clock the tests set: performance.now() is stubbed.

let clock = 0;
afterEach(() => vi.restoreAllMocks());
const setClock = (ms: number) => {
  clock = ms;
  vi.spyOn(performance, 'now').mockImplementation(() => clock);
};

/** A stream opened at 0 whose endpoint came at 0, with comment frames at `beats` (ms). */
function fakeStream(label: string, beats: number[] = []) {
  let ended: string | undefined;
  const frames = [
    { at: 0, event: 'endpoint', data: '/messages?sessionId=1', comment: false },
    ...beats.map((at) => ({ at, event: undefined, data: 'keep-alive', comment: true })),
  ];
  const channel = {
    transport: 'sse',
    peer: { label },
    openedAt: 0,
    frames,
    gone: () => ended,
    close: vi.fn(async () => {
      ended = 'the harness closed the stream';
    }),
    frameItems: () =>
      frames.map((f) => ({
        atMs: f.at,
        data: f.data,
        ...(f.comment ? { comment: true } : { event: f.event }),
      })),
  };
  return channel as unknown as SseChannel & { close: ReturnType<typeof vi.fn> };
}

describe('keepAliveVerdictSettled', () => {
  test('open: not settled until a second beat closes an interval, a gap passes the limit, or the window ends', () => {
    expect(keepAliveVerdictSettled(fakeStream('idle'), 5_000)).toBe(false);
    // One beat is no interval: the rest of the watch may still hold a gap over 20 s.
    expect(keepAliveVerdictSettled(fakeStream('idle', [15_000]), 16_000)).toBe(false);
    expect(keepAliveVerdictSettled(fakeStream('idle', [15_000, 30_000]), 31_000)).toBe(true);
    // 20 s since the last beat (or the window's start): a failure, whatever follows.
    expect(keepAliveVerdictSettled(fakeStream('idle', [15_000]), 35_001)).toBe(true);
    expect(keepAliveVerdictSettled(fakeStream('idle'), 20_001)).toBe(true);
    expect(keepAliveVerdictSettled(fakeStream('idle', [5_000]), 24_000)).toBe(false);
    expect(KEEP_ALIVE_WATCH_MS).toBeGreaterThan(2 * 20_000);
  });

  test('a stream that ended is settled', async () => {
    const stream = fakeStream('idle');
    await stream.close();
    expect(keepAliveVerdictSettled(stream, 1_000)).toBe(true);
  });
});

describe('IdleStream', () => {
  const make = (first: SseChannel | Error, again?: SseChannel | Error) => {
    const opened: string[] = [];
    const closeShared = vi.fn(async () => {});
    const idle = new IdleStream(async (label) => {
      opened.push(label);
      const next = label === 'idle' ? first : again;
      if (next === undefined || next instanceof Error) throw next ?? new Error('no stream');
      return next;
    }, closeShared);
    return { idle, opened, closeShared };
  };

  test('letGo closes the stream once and says so; the refusals after it are told it holds none', async () => {
    setClock(2_000);
    const first = fakeStream('idle');
    const { idle } = make(first);
    await idle.start();
    expect(await idle.letGo()).toBe(true);
    expect(first.close).toHaveBeenCalledTimes(1);
    expect(await idle.letGo()).toBe(false);
    expect(first.close).toHaveBeenCalledTimes(1);
  });

  test('two refusals at once: one lets the stream go, the other is told it holds none', async () => {
    setClock(2_000);
    const first = fakeStream('idle');
    const { idle } = make(first);
    await idle.start();
    expect((await Promise.all([idle.letGo(), idle.letGo()])).sort()).toEqual([false, true]);
    expect(first.close).toHaveBeenCalledTimes(1);
  });

  test('letGo with no stream held (none opened, or the server ended it) says no', async () => {
    setClock(2_000);
    const none = make(new Error('refused'));
    await none.idle.start();
    expect(await none.idle.letGo()).toBe(false);
    await expect(none.idle.watched()).rejects.toThrow(/could not be opened with the suite/);
    const ended = fakeStream('idle');
    const endedIdle = make(ended);
    await endedIdle.idle.start();
    await ended.close();
    expect(await endedIdle.idle.letGo()).toBe(false);
    expect(await endedIdle.idle.watched()).toBe(ended);
  });

  test('let go after its verdict settled: the keep-alive check judges the first stream, nothing new is opened', async () => {
    setClock(31_000);
    const first = fakeStream('idle', [15_000, 30_000]);
    const { idle, opened, closeShared } = make(first, fakeStream('idle-again'));
    await idle.start();
    expect(await idle.letGo()).toBe(true);
    expect(await idle.watched()).toBe(first);
    expect(opened).toEqual(['idle']);
    expect(closeShared).not.toHaveBeenCalled();
  });

  test('let go before its verdict settled: the sessions left open are closed, then one new stream is watched', async () => {
    setClock(3_000);
    const again = fakeStream('idle-again');
    const { idle, opened, closeShared } = make(fakeStream('idle'), again);
    await idle.start();
    expect(await idle.letGo()).toBe(true);
    expect(await idle.watched()).toBe(again);
    expect(await idle.watched()).toBe(again);
    expect(opened).toEqual(['idle', 'idle-again']);
    expect(closeShared).toHaveBeenCalledTimes(1);
  });

  test('a new stream that cannot be opened leaves the check not exercised, saying why; a server gone stays gone', async () => {
    setClock(3_000);
    const refused = make(fakeStream('idle'), new Error('GET /sse was answered HTTP 503'));
    await refused.idle.start();
    await refused.idle.letGo();
    const error = await refused.idle.watched().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotExercised);
    expect((error as Error).message).toMatch(/let go before its keep-alives were judged.*HTTP 503/);
    const gone = make(fakeStream('idle'), new TargetGone('the server stopped answering'));
    await gone.idle.start();
    await gone.idle.letGo();
    await expect(gone.idle.watched()).rejects.toBeInstanceOf(TargetGone);
  });
});
