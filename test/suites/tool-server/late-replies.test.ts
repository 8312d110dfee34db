import { describe, expect, test } from 'vitest';
import type { JsonRpcResponse } from '../../../src/protocol/jsonrpc/index.js';
import type { Channel, PostOutcome } from '../../../src/suites/tool-server/channel.js';
import type { Exchange } from '../../../src/suites/tool-server/rpc.js';
import { LATE_REPLY_FACTOR, withLateReplies } from '../../../src/suites/tool-server/slow-call.js';

const REPLY_MS = 100;
const pong = (id: number): JsonRpcResponse => ({ jsonrpc: '2.0', id, result: {} });

/**
 * A session whose late replies are scripted: `late[id]` is the reply the wait gets, or none.
 * It records each wait asked for and how many were in flight at once.
 */
function session(late: Record<number, JsonRpcResponse | undefined>) {
  const asked: { id: number; ms: number }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const channel = {
    gone: () => undefined,
    peer: {
      async wait(id: number, ms: number) {
        asked.push({ id, ms });
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight -= 1;
        const reply = late[id];
        return reply === undefined ? { reply: undefined, why: `no reply within ${ms} ms` } : { reply };
      },
    },
  } as unknown as Channel;
  return { channel, asked, mostInFlight: () => mostInFlight };
}

const accepted: PostOutcome = { status: 202, body: '', contentType: undefined };
const refused: PostOutcome = { status: 404, body: 'no such session', contentType: 'text/plain' };
const noResponse: PostOutcome = {
  status: undefined,
  body: '',
  contentType: undefined,
  problem: 'no response within 1000 ms',
  timedOut: true,
};
const unanswered = (id: number, post: PostOutcome | undefined): Exchange => ({
  id,
  reply: undefined,
  why: `no reply within ${REPLY_MS} ms`,
  post,
});

describe('withLateReplies: requests of a burst left unanswered within the budget', () => {
  const lateMs = LATE_REPLY_FACTOR * REPLY_MS;

  test('one the server took gets LATE_REPLY_FACTOR budgets more, and its late reply counts', async () => {
    const s = session({ 1: pong(1), 2: pong(2) });
    const [stdio, post] = await withLateReplies(
      [
        { channel: s.channel, ex: unanswered(1, undefined) },
        { channel: s.channel, ex: unanswered(2, accepted) },
      ],
      REPLY_MS,
    );
    expect(stdio).toEqual({ reply: pong(1), why: undefined, lateMs });
    expect(post).toEqual({ reply: pong(2), why: undefined, lateMs });
    expect(s.asked).toEqual([
      { id: 1, ms: lateMs },
      { id: 2, ms: lateMs },
    ]);
  });

  test('a POST with no HTTP response at all (a process busy with a slow call) is waited for too; a refused one is not', async () => {
    const s = session({ 3: pong(3), 4: pong(4) });
    const [busy, gone] = await withLateReplies(
      [
        { channel: s.channel, ex: unanswered(3, noResponse) },
        { channel: s.channel, ex: unanswered(4, refused) },
      ],
      REPLY_MS,
    );
    expect(busy).toEqual({ reply: pong(3), why: undefined, lateMs });
    expect(gone).toEqual({ reply: undefined, why: `no reply within ${REPLY_MS} ms`, lateMs: 0 });
    expect(s.asked.map((a) => a.id)).toEqual([3]);
  });

  test('one answered in time is not waited for', async () => {
    const s = session({});
    const [got] = await withLateReplies(
      [{ channel: s.channel, ex: { id: 5, reply: pong(5), post: accepted } }],
      REPLY_MS,
    );
    expect(got).toEqual({ reply: pong(5), why: undefined, lateMs: 0 });
    expect(s.asked).toEqual([]);
  });

  test('still none after the window: why says both waits', async () => {
    const s = session({});
    const [got] = await withLateReplies([{ channel: s.channel, ex: unanswered(6, accepted) }], REPLY_MS);
    expect(got).toEqual({
      reply: undefined,
      why: `no reply within ${REPLY_MS} ms; then no reply within ${lateMs} ms`,
      lateMs,
    });
  });

  test('the late ones are waited for together: one window, however many', async () => {
    const s = session({});
    const sent = Array.from({ length: 8 }, (_, i) => ({
      channel: s.channel,
      ex: unanswered(10 + i, accepted),
    }));
    await withLateReplies(sent, REPLY_MS);
    expect(s.asked).toHaveLength(8);
    expect(s.mostInFlight()).toBe(8);
  });
});
