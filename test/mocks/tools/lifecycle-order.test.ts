import { describe, expect, test } from 'vitest';
import { lifecycleViolation, ToolJournal, type ToolJournalEntry } from '../../../src/mocks/tools/index.js';

// The lifecycle order the must check judges (MCP 2024-11-05: initialize first; after its
// result the client MUST send notifications/initialized before normal operation), apart from
// the requests a client pipelines before the result, which MCP only says SHOULD NOT be sent.

/** A journal of messages, each with its direction, in one session. */
function journalOf(...messages: readonly (readonly ['received' | 'sent', unknown])[]): ToolJournalEntry[] {
  const j = new ToolJournal();
  for (const [direction, m] of messages) {
    j.record({
      session: 's',
      transport: 'stdio',
      direction,
      kind: 'message',
      text: JSON.stringify(m),
      value: m,
    });
  }
  return j.entries();
}

const req = (id: number, method: string) => ['received', { jsonrpc: '2.0', id, method }] as const;
const initialized = ['received', { jsonrpc: '2.0', method: 'notifications/initialized' }] as const;
const result = (id: number) => ['sent', { jsonrpc: '2.0', id, result: {} }] as const;

describe('lifecycleViolation', () => {
  test('a request pipelined before the initialize result, initialized after it: no must violation', () => {
    expect(
      lifecycleViolation(
        journalOf(req(1, 'initialize'), req(2, 'tools/list'), result(1), initialized, result(2)),
      ),
    ).toBeUndefined();
  });

  test('a request after the initialize result and before initialized: to be confirmed (after-result)', () => {
    const v = lifecycleViolation(
      journalOf(req(1, 'initialize'), result(1), req(2, 'tools/call'), initialized),
    );
    expect(v?.kind).toBe('after-result');
    expect(v?.reason).toMatch(/tools\/call came after the initialize result but before/);
  });

  test('no initialized at all after a pipelined request and the result: an order violation', () => {
    const v = lifecycleViolation(journalOf(req(1, 'initialize'), req(2, 'tools/call'), result(1), result(2)));
    expect(v?.kind).toBe('order');
    expect(v?.reason).toMatch(/never sent the notifications\/initialized/);
  });

  test('a request before initialize, a second initialize, initialized before initialize: order violations', () => {
    expect(lifecycleViolation(journalOf(req(1, 'server/discover'), req(2, 'initialize')))?.kind).toBe(
      'order',
    );
    expect(
      lifecycleViolation(journalOf(req(1, 'initialize'), result(1), initialized, req(2, 'initialize')))
        ?.reason,
    ).toBe('a second initialize request in the same session');
    expect(lifecycleViolation(journalOf(initialized, req(1, 'initialize')))?.kind).toBe('order');
  });

  test('ping is allowed anywhere; a client sending nothing after initialize breaks nothing', () => {
    expect(
      lifecycleViolation(journalOf(req(1, 'ping'), req(2, 'initialize'), req(3, 'ping'), result(2))),
    ).toBe(undefined);
  });

  describe('a message that names no session (Streamable HTTP: sent before the session id came)', () => {
    const S = '6f1c2d3e-0000-4000-8000-000000000001';
    /** An HTTP journal of these messages, each with its direction and session. */
    const inSessions = (...messages: readonly (readonly ['received' | 'sent', string, unknown])[]) => {
      const j = new ToolJournal();
      for (const [direction, session, m] of messages) {
        j.record({
          session,
          transport: 'http',
          direction,
          kind: 'message',
          text: JSON.stringify(m),
          value: m,
        });
      }
      return j.entries();
    };
    const init = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize' });
    const note = initialized[1];

    test('initialized between initialize and its result belongs to that session: no must violation', () => {
      const v = lifecycleViolation(
        inSessions(
          ['received', S, init(1)],
          ['received', '(none)', note],
          ['received', '(none)', { jsonrpc: '2.0', id: 2, method: 'tools/call' }],
          ['sent', S, result(1)[1]],
        ),
      );
      expect(v).toBeUndefined();
    });

    test('initialized without a session after the result, then a call: the order of that session, kept', () => {
      const v = lifecycleViolation(
        inSessions(
          ['received', S, init(1)],
          ['sent', S, result(1)[1]],
          ['received', '(none)', note],
          ['received', S, { jsonrpc: '2.0', id: 2, method: 'tools/call' }],
        ),
      );
      expect(v).toBeUndefined();
    });

    test('a call without a session after the result and before initialized is judged in that session', () => {
      const v = lifecycleViolation(
        inSessions(
          ['received', S, init(1)],
          ['sent', S, result(1)[1]],
          ['received', '(none)', { jsonrpc: '2.0', id: 2, method: 'tools/call' }],
          ['received', S, note],
        ),
      );
      expect(v).toMatchObject({ kind: 'after-result', entry: { session: '(none)' } });
    });

    test('one before any initialize still came before initialize', () => {
      const v = lifecycleViolation(inSessions(['received', '(none)', note], ['received', S, init(1)]));
      expect(v?.reason).toBe('notifications/initialized came before initialize');
    });
  });

  describe('two HTTP requests in flight at once', () => {
    /** The journal, each message over HTTP, arrived whole at `atMs` after its headers began `bodyMs` earlier. */
    const overHttp = (...messages: readonly (readonly ['received' | 'sent', unknown, number, number])[]) =>
      messages.map(
        ([direction, m, atMs, bodyMs], seq): ToolJournalEntry => ({
          seq,
          at: 0,
          atMs,
          session: 's',
          transport: 'sse',
          direction,
          kind: 'message',
          text: JSON.stringify(m),
          value: m,
          ...(direction === 'received'
            ? { http: { method: 'POST', url: '/messages', status: 202, bodyMs } }
            : {}),
        }),
      );
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call' };
    const notification = initialized[1];

    test("a call that overtook the notification, whose POST began first: overlapped, naming the notification's head start", () => {
      const v = lifecycleViolation(
        overHttp(
          ['received', { jsonrpc: '2.0', id: 1, method: 'initialize' }, 10, 1],
          ['sent', { jsonrpc: '2.0', id: 1, result: {} }, 11, 0],
          ['received', call, 70, 1],
          ['received', notification, 320, 300],
        ),
      );
      expect(v?.kind).toBe('overlapped');
      expect(v?.reason).toContain(
        "the notification's HTTP request had begun to arrive 49 ms before the tools/call's",
      );
    });

    test("a call whose POST began before the notification's, however slow its body: after-result", () => {
      const v = lifecycleViolation(
        overHttp(
          ['received', { jsonrpc: '2.0', id: 1, method: 'initialize' }, 10, 1],
          ['sent', { jsonrpc: '2.0', id: 1, result: {} }, 11, 0],
          ['received', call, 70, 40],
          ['received', notification, 80, 5],
        ),
      );
      expect(v?.kind).toBe('after-result');
    });

    test('a session shown out of order outweighs another whose requests only overlapped', () => {
      const overlapping = overHttp(
        ['received', { jsonrpc: '2.0', id: 1, method: 'initialize' }, 10, 1],
        ['sent', { jsonrpc: '2.0', id: 1, result: {} }, 11, 0],
        ['received', call, 70, 1],
        ['received', notification, 320, 300],
      );
      const outOfOrder = overHttp(
        ['received', { jsonrpc: '2.0', id: 5, method: 'initialize' }, 400, 1],
        ['sent', { jsonrpc: '2.0', id: 5, result: {} }, 401, 0],
        ['received', { jsonrpc: '2.0', id: 6, method: 'tools/list' }, 410, 1],
        ['received', notification, 420, 1],
      ).map((e) => ({ ...e, seq: e.seq + 4, session: 't' }));
      const v = lifecycleViolation([...overlapping, ...outOfOrder]);
      expect(v).toMatchObject({ kind: 'after-result', entry: { session: 't' } });
    });
  });
});
