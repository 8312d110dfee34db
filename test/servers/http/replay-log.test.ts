import { describe, expect, test } from 'vitest';
import {
  ENDED_STREAMS_KEPT,
  eventIdOf,
  ReplayBudget,
  type ReplayEvent,
  ReplayLog,
} from '../../../src/servers/http/replay-log.js';

/** An event of `chars` characters in all (the log counts a frame's length). */
function event(stream: number, seq: number, chars: number): ReplayEvent {
  const id = eventIdOf(stream, seq);
  const head = `id: ${id}\nevent: message\ndata: `;
  return { stream, seq, id, frame: `${head}${'x'.repeat(Math.max(0, chars - head.length - 2))}\n\n` };
}

const KiB = 1024;

describe('ReplayLog: one session', () => {
  test('past its own limit the oldest events go, and a resumption from before them is refused as a gap', () => {
    const log = new ReplayLog(3 * KiB);
    for (let seq = 1; seq <= 5; seq++) log.add(event(1, seq, KiB));
    expect(log.size).toBe(3 * KiB);
    expect(log.after(1, 1)).toBeUndefined();
    expect(log.after(1, 2)?.map((e) => e.seq)).toEqual([3, 4, 5]);
  });

  test('a stream read to its end: its events go; after its last event nothing is due, before it is a gap', () => {
    const log = new ReplayLog(64 * KiB);
    log.add(event(1, 1, KiB));
    log.add(event(2, 1, KiB));
    log.add(event(1, 2, KiB));
    log.endStream(1, 2);
    expect(log.size).toBe(KiB);
    expect(log.hasEnded(1)).toBe(true);
    expect(log.after(1, 2)).toEqual([]);
    expect(log.after(1, 1)).toBeUndefined();
    expect(log.after(2, 0)?.map((e) => e.id)).toEqual(['2-1']);
  });

  test(`only the last ${ENDED_STREAMS_KEPT} ended streams are remembered`, () => {
    const log = new ReplayLog(64 * KiB);
    for (let stream = 1; stream <= ENDED_STREAMS_KEPT + 10; stream++) log.endStream(stream, 1);
    expect(log.hasEnded(10)).toBe(false);
    expect(log.hasEnded(11)).toBe(true);
    expect(log.hasEnded(ENDED_STREAMS_KEPT + 10)).toBe(true);
  });
});

describe('ReplayBudget: every session of an endpoint together', () => {
  test('with many sessions the total never passes the budget, and it is the sum of what each log holds', () => {
    const budget = new ReplayBudget(64 * KiB);
    const logs = Array.from({ length: 1_000 }, () => new ReplayLog(KiB * KiB, budget));
    let peak = 0;
    for (let round = 1; round <= 4; round++) {
      for (const log of logs) {
        log.add(event(round, 1, 900));
        peak = Math.max(peak, budget.size);
      }
    }
    expect(peak).toBeLessThanOrEqual(64 * KiB);
    expect(budget.size).toBe(logs.reduce((n, l) => n + l.size, 0));
    // 1,000 sessions x 4 events of 900 characters is 3.4 MiB: without the budget each would keep them.
    expect(budget.size).toBeGreaterThan(60 * KiB);
  });

  test('the largest log gives up its oldest events first; a smaller one keeps its own', () => {
    const budget = new ReplayBudget(48 * KiB);
    const big = new ReplayLog(KiB * KiB, budget);
    const small = new ReplayLog(KiB * KiB, budget);
    for (let seq = 1; seq <= 40; seq++) big.add(event(1, seq, KiB));
    for (let seq = 1; seq <= 8; seq++) small.add(event(1, seq, KiB));
    expect(budget.size).toBe(48 * KiB);
    small.add(event(1, 9, 4 * KiB));
    expect(budget.size).toBe(48 * KiB);
    expect(small.after(1, 0)?.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(big.size).toBe(36 * KiB);
    expect(big.after(1, 3)).toBeUndefined();
    expect(big.after(1, 4)?.map((e) => e.seq)).toEqual(Array.from({ length: 36 }, (_, i) => i + 5));
  });

  test('an event larger than the whole budget is not kept, and its stream is not resumable from before it', () => {
    const budget = new ReplayBudget(4 * KiB);
    const log = new ReplayLog(KiB * KiB, budget);
    log.add(event(1, 1, KiB));
    log.add(event(1, 2, 8 * KiB));
    expect(budget.size).toBe(0);
    expect(log.after(1, 1)).toBeUndefined();
  });

  test('a cleared log (its session ended) and an ended stream give their room back', () => {
    const budget = new ReplayBudget(64 * KiB);
    const a = new ReplayLog(KiB * KiB, budget);
    const b = new ReplayLog(KiB * KiB, budget);
    a.add(event(1, 1, 10 * KiB));
    b.add(event(1, 1, 5 * KiB));
    b.add(event(2, 1, 3 * KiB));
    expect(budget.size).toBe(18 * KiB);
    a.clear();
    expect(budget.size).toBe(8 * KiB);
    b.endStream(1, 1);
    expect(budget.size).toBe(3 * KiB);
    b.forget(2);
    expect(budget.size).toBe(0);
  });

  test('a budget of 0 keeps nothing', () => {
    const budget = new ReplayBudget(0);
    const log = new ReplayLog(KiB * KiB, budget);
    log.add(event(1, 1, KiB));
    expect(log.size).toBe(0);
    expect(budget.size).toBe(0);
  });
});
