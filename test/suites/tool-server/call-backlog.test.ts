import { expect, test } from 'vitest';
import { CallBacklog } from '../../../src/suites/tool-server/call-backlog.js';
import { RpcPeer } from '../../../src/suites/tool-server/peer.js';

/** A backlog on a clock the test moves. */
function backlogAt(perCallMs: number) {
  const clock = { now: 1000 };
  return { clock, backlog: new CallBacklog(perCallMs, () => clock.now) };
}

test('nothing left unanswered: nothing owed', () => {
  const { backlog } = backlogAt(5000);
  backlog.left(0);
  expect(backlog.owedMs(0)).toBe(0);
});

test('calls left by closed sessions queue one after the other, and are worked off as time passes', () => {
  const { clock, backlog } = backlogAt(5000);
  backlog.left(3);
  expect(backlog.owedMs(0)).toBe(15_000);
  clock.now += 4000;
  backlog.left(1);
  expect(backlog.owedMs(0)).toBe(16_000);
  clock.now += 20_000;
  expect(backlog.owedMs(0)).toBe(0);
  // Once worked off, a new call queues from now, not from the old end.
  backlog.left(2);
  expect(backlog.owedMs(0)).toBe(10_000);
});

test('calls still unanswered in open sessions count on top', () => {
  const { backlog } = backlogAt(1500);
  backlog.left(1);
  expect(backlog.owedMs(2)).toBe(4500);
});

test('a peer counts the tools/call requests it sent that got no reply, not its other requests', () => {
  const peer = new RpcPeer('p', () => {});
  const send = (id: number, method: string) => {
    const m = { jsonrpc: '2.0', id, method };
    peer.recordSent(JSON.stringify(m), m);
  };
  send(1, 'tools/call');
  send(2, 'tools/call');
  send(3, 'ping');
  expect(peer.unansweredCalls()).toBe(2);
  const reply = { jsonrpc: '2.0', id: 2, result: { content: [] } };
  peer.receive(JSON.stringify(reply), reply, true);
  expect(peer.unansweredCalls()).toBe(1);
  expect(peer.slowestCallMs).toBeGreaterThan(0);
});

test('a call answered slower than the reply budget prices the calls left after it', () => {
  const { backlog } = backlogAt(1500);
  backlog.observe(1000);
  backlog.left(1);
  expect(backlog.owedMs(0)).toBe(1500);
  backlog.observe(3500);
  backlog.left(2);
  expect(backlog.owedMs(0)).toBe(1500 + 7000);
});
