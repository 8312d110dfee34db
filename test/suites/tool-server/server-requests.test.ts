import { expect, test } from 'vitest';
import {
  cappedAnswers,
  MAX_ANSWERS_IN_FLIGHT,
  MAX_ANSWERS_QUEUED,
} from '../../../src/suites/tool-server/answer-cap.js';
import { PEER_LIMITS, RpcPeer } from '../../../src/suites/tool-server/peer.js';

function peerAnswering() {
  const answers: unknown[] = [];
  const peer = new RpcPeer('p', (m) => answers.push(m));
  const arrive = (message: unknown) => peer.receive(JSON.stringify(message), message, true);
  return { answers, arrive, peer };
}

// The harness answers a server's own requests (a ping; anything else with method not found),
// echoing the server's id and quoting its method: what it echoes is bounded.
test("a server's ping is answered; an unknown method is refused, quoting at most maxQuotedMethodChars of its name", () => {
  const { answers, arrive } = peerAnswering();
  arrive({ jsonrpc: '2.0', id: 1, method: 'ping' });
  arrive({ jsonrpc: '2.0', id: 2, method: `x/${'m'.repeat(100_000)}` });
  expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  const refused = answers[1] as { id: number; error: { message: string } };
  expect(refused.id).toBe(2);
  expect(refused.error.message).toBe(
    `the wirecheck harness does not handle x/${'m'.repeat(PEER_LIMITS.maxQuotedMethodChars - 2)}`,
  );
});

test('a request whose string id is longer than maxAnsweredIdChars is not answered (the answer would echo it whole)', () => {
  const { answers, arrive } = peerAnswering();
  arrive({ jsonrpc: '2.0', id: 'i'.repeat(PEER_LIMITS.maxAnsweredIdChars + 1), method: 'ping' });
  arrive({ jsonrpc: '2.0', id: 'i'.repeat(PEER_LIMITS.maxAnsweredIdChars), method: 'ping' });
  expect(answers.map((a) => (a as { id: string }).id.length)).toEqual([PEER_LIMITS.maxAnsweredIdChars]);
});

// Both HTTP channels (SSE + POST, Streamable HTTP) answer through it.
test('cappedAnswers: at most MAX_ANSWERS_IN_FLIGHT answers POSTed at once, the next ones queued and sent in turn as those end', async () => {
  const pending: (() => void)[] = [];
  const sent: number[] = [];
  const respond = cappedAnswers((text) => {
    sent.push((JSON.parse(text) as { id: number }).id);
    return new Promise<void>((resolve) => pending.push(resolve));
  });
  for (let id = 1; id <= 100; id++) respond({ jsonrpc: '2.0', id, result: {} });
  expect(sent).toHaveLength(MAX_ANSWERS_IN_FLIGHT);
  pending[0]!();
  await new Promise((r) => setTimeout(r, 0));
  expect(sent).toEqual(Array.from({ length: MAX_ANSWERS_IN_FLIGHT + 1 }, (_, i) => i + 1));
});

test('cappedAnswers: past MAX_ANSWERS_QUEUED waiting answers a request goes unanswered', async () => {
  const pending: (() => void)[] = [];
  let sent = 0;
  const respond = cappedAnswers(() => {
    sent += 1;
    return new Promise<void>((resolve) => pending.push(resolve));
  });
  for (let id = 1; id <= 3000; id++) respond({ jsonrpc: '2.0', id, result: {} });
  expect(sent).toBe(MAX_ANSWERS_IN_FLIGHT);
  // Every POST then ends: the queued answers go out in turn, and no more.
  for (let i = 0; i < 2000 && pending.length > 0; i++) {
    pending.shift()!();
    await new Promise((r) => setTimeout(r, 0));
  }
  expect(sent).toBe(MAX_ANSWERS_IN_FLIGHT + MAX_ANSWERS_QUEUED);
});

// MCP 2025-03-26: "MUST support receiving JSON-RPC batches". Over stdio and SSE a batch is one
// line or frame; each message in it is a reply or a request of its own.
test('a batch from the server: the reply in it reaches its waiter, and the ping in it is answered', async () => {
  const { answers, arrive, peer } = peerAnswering();
  const waiting = peer.wait(7, 2000, () => undefined);
  arrive([
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
    { jsonrpc: '2.0', id: 'server-ping', method: 'ping' },
    { jsonrpc: '2.0', id: 7, result: { tools: [] } },
  ]);
  expect((await waiting).reply).toEqual({ jsonrpc: '2.0', id: 7, result: { tools: [] } });
  expect(answers).toEqual([{ jsonrpc: '2.0', id: 'server-ping', result: {} }]);
});
