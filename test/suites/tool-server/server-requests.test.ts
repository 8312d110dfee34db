import { expect, test } from 'vitest';
import { cappedAnswers, MAX_ANSWERS_IN_FLIGHT } from '../../../src/suites/tool-server/answer-cap.js';
import { PEER_LIMITS, RpcPeer } from '../../../src/suites/tool-server/peer.js';

function peerAnswering() {
  const answers: unknown[] = [];
  const peer = new RpcPeer('p', (m) => answers.push(m));
  const arrive = (message: unknown) => peer.receive(JSON.stringify(message), message, true);
  return { answers, arrive };
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
test('cappedAnswers: at most MAX_ANSWERS_IN_FLIGHT answers POSTed at once; one that ends makes room', async () => {
  const pending: (() => void)[] = [];
  const sent: string[] = [];
  const respond = cappedAnswers((text) => {
    sent.push(text);
    return new Promise<void>((resolve) => pending.push(resolve));
  });
  for (let id = 1; id <= 100; id++) respond({ jsonrpc: '2.0', id, result: {} });
  expect(sent).toHaveLength(MAX_ANSWERS_IN_FLIGHT);
  pending[0]!();
  await new Promise((r) => setTimeout(r, 0));
  respond({ jsonrpc: '2.0', id: 101, result: {} });
  expect(sent).toHaveLength(MAX_ANSWERS_IN_FLIGHT + 1);
  expect(JSON.parse(sent.at(-1)!)).toEqual({ jsonrpc: '2.0', id: 101, result: {} });
});
