import { describe, expect, test } from 'vitest';
import { RpcPeer, strayReplySentence } from '../../../src/suites/tool-server/peer.js';
import { notPassed, quickSuite, runAgainst, statusById, testServer } from './helpers.js';

function peerThatSent(id: number | string) {
  const peer = new RpcPeer('p', () => {});
  const m = { jsonrpc: '2.0', id, method: 'tools/list' };
  peer.recordSent(JSON.stringify(m), m);
  return peer;
}

function arrive(peer: RpcPeer, message: unknown) {
  peer.receive(JSON.stringify(message), message, true);
}

describe('a wait that ends without a reply says what replies to ids never sent arrived meanwhile', () => {
  test('a reply under a wrong id is named, with its error', async () => {
    const peer = peerThatSent('req-1');
    const waiting = peer.wait('req-1', 60, () => undefined);
    arrive(peer, { jsonrpc: '2.0', id: -32603, error: { code: 1, message: 'Expected string, got "req-1"' } });
    const got = await waiting;
    expect(got.reply).toBeUndefined();
    expect('why' in got && got.why).toContain(
      'no reply within 60 ms (meanwhile 1 reply arrived with an id no request had, the first: id -32603, error 1 "Expected string, got \\"req-1\\""',
    );
  });

  test('an id of another type than the request is shown with its type', async () => {
    const peer = peerThatSent('7');
    const waiting = peer.wait('7', 40, () => undefined);
    arrive(peer, { jsonrpc: '2.0', id: 7, result: {} });
    const got = await waiting;
    expect('why' in got && got.why).toContain('the first: id 7, a result');
  });

  test('replies that arrived before the wait began are not counted', async () => {
    const peer = peerThatSent(5);
    arrive(peer, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    const got = await peer.wait(5, 30, () => undefined);
    expect('why' in got && got.why).not.toContain('meanwhile');
    expect('why' in got && got.why).toContain('no reply within 30 ms');
  });

  test('the sentence counts every such reply and quotes the first kept', () => {
    expect(strayReplySentence(0, undefined)).toBe('');
    expect(
      strayReplySentence(3, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
    ).toBe(
      ' (meanwhile 3 replies arrived with an id no request had, the first: id null, error -32700 "Parse error")',
    );
    // Past the kept replies only the count is known.
    expect(strayReplySentence(1200, undefined)).toBe(
      ' (meanwhile 1,200 replies arrived with an id no request had)',
    );
  });
});

test('the requests of a batch count as sent: their replies, answered one by one, are not strays', () => {
  // JSON-RPC 2.0 asks for an array with a "should": a server may answer each member alone, and
  // no-cross-session-reply must not read those replies as another session's.
  const peer = new RpcPeer('p', () => {});
  const batch = [
    { jsonrpc: '2.0', id: 'wirecheck-batch-1', method: 'ping' },
    { jsonrpc: '2.0', id: 'wirecheck-batch-2', method: 'ping' },
  ];
  peer.recordSent(JSON.stringify(batch), batch);
  arrive(peer, { jsonrpc: '2.0', id: 'wirecheck-batch-2', result: {} });
  arrive(peer, { jsonrpc: '2.0', id: 'wirecheck-batch-1', result: {} });
  arrive(peer, { jsonrpc: '2.0', id: 'never-sent', result: {} });
  expect(peer.strayReplies.map((r) => r.id)).toEqual(['never-sent']);
  expect(peer.hasReply('wirecheck-batch-1')).toBe(true);
});

describe('a server answering the members of a batch one by one (SSE + POST, 2025-03-26)', () => {
  // Each reply is a message of its own on the session's stream: the batch check accepts that, and
  // no-cross-session-reply must not read them as replies meant for another session.
  test('passes batch-answered and no-cross-session-reply, and every other check', async () => {
    const target = { ...(await testServer('batch-one-by-one', 'sse')), protocol: '2025-03-26' as const };
    const result = await runAgainst(target, {}, quickSuite);
    const status = statusById(result);
    expect(status['tool-server.jsonrpc.batch-answered']).toBe('pass');
    expect(status['tool-server.sse.no-cross-session-reply']).toBe('pass');
    expect(notPassed(result)).toEqual([]);
  }, 180_000);
});
