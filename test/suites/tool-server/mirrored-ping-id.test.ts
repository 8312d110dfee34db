import { expect, test } from 'vitest';
import { RpcPeer } from '../../../src/suites/tool-server/peer.js';
import { quickSuite, runAgainst, testServer } from './helpers.js';

// The two sides of a session number their requests apart (MCP 2024-11-05: an id "MUST NOT have
// been previously used by the requestor"): a server's own ping is wirecheck's ping to the byte
// whenever its id counter meets wirecheck's, and it is no echo.

test("a server that pings back with the id of wirecheck's ping before answering it passes ping.answered", async () => {
  const result = await runAgainst(
    await testServer('mirror-ping-id', 'stdio'),
    { only: ['tool-server.ping.answered'] },
    quickSuite,
  );
  const check = result.checks.find((c) => c.id === 'tool-server.ping.answered')!;
  expect(check, check.message).toMatchObject({ status: 'pass' });
}, 90_000);

test("the server's ping with the id of wirecheck's own pending ping is answered, and wirecheck's wait goes on to the server's reply", async () => {
  const answered: unknown[] = [];
  const peer = new RpcPeer('p', (m) => answered.push(m));
  const text = '{"jsonrpc":"2.0","id":7,"method":"ping"}';
  peer.recordSent(text, JSON.parse(text));
  const waiting = peer.wait(7, 2000, () => undefined);
  peer.receive(text, JSON.parse(text), true);
  expect(answered).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
  const reply = { jsonrpc: '2.0', id: 7, result: {} };
  peer.receive(JSON.stringify(reply), reply, true);
  expect((await waiting).reply).toEqual(reply);
  expect(peer.wire.diagnosis().problems).toEqual([]);
  peer.keptText.release();
});

test('a ping sent back unchanged after the session echoed something else is an echo: not answered, and its wait ends saying so', async () => {
  const answered: unknown[] = [];
  const peer = new RpcPeer('cat', (m) => answered.push(m));
  const initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
  const ping = '{"jsonrpc":"2.0","id":7,"method":"ping"}';
  peer.recordSent(initialized, JSON.parse(initialized));
  peer.recordSent(ping, JSON.parse(ping));
  const waiting = peer.wait(7, 5000, () => undefined);
  peer.receive(initialized, JSON.parse(initialized), true);
  peer.receive(ping, JSON.parse(ping), true);
  const got = await waiting;
  expect(got.reply).toBeUndefined();
  expect(got).toMatchObject({ why: expect.stringContaining('it looks like `cat`, not a tool server') });
  // Answering it would have `cat` send the answer back as the reply to wirecheck's own ping.
  expect(answered).toEqual([]);
  peer.keptText.release();
});

test("a server that sends every request back, and then wirecheck's answer to it, fails ping.answered: it echoes, it does not answer", async () => {
  const result = await runAgainst(
    await testServer('echo-after-initialize', 'stdio'),
    { only: ['tool-server.ping.answered'] },
    quickSuite,
  );
  const check = result.checks.find((c) => c.id === 'tool-server.ping.answered')!;
  expect(check.status, check.message).toBe('fail');
  expect(check.message).toContain(
    "the server sent back wirecheck's own answer to a ping of the same id it had sent",
  );
}, 90_000);

test("wirecheck's answer to a mirrored ping, sent back to the byte, is an echo: the wait for wirecheck's own ping ends saying so", async () => {
  const answered: unknown[] = [];
  const peer = new RpcPeer('p', (m) => answered.push(m));
  const text = '{"jsonrpc":"2.0","id":7,"method":"ping"}';
  peer.recordSent(text, JSON.parse(text));
  const waiting = peer.wait(7, 2000, () => undefined);
  peer.receive(text, JSON.parse(text), true);
  const answer = JSON.stringify(answered[0]);
  peer.recordSent(answer, answered[0]);
  peer.receive(answer, JSON.parse(answer), true);
  const got = await waiting;
  expect(got.reply).toBeUndefined();
  expect(got).toMatchObject({ why: expect.stringContaining('it echoes requests, it does not answer them') });
  peer.keptText.release();
});
