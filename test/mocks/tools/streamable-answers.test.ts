import { request as httpRequest } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import {
  type MockToolServerOptions,
  type RunningMockToolServer,
  startStreamableHttpMockToolServer,
  type ToolJournalEntry,
  type ToolScenarioInput,
} from '../../../src/mocks/tools/index.js';

// What the Streamable HTTP mock keeps of a POST's answer stream once its client left, and the
// shape of a JSON answer to a batch.

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const callOf = (id: number, text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

let server: RunningMockToolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(scenario: ToolScenarioInput, options: MockToolServerOptions = {}) {
  server = await startStreamableHttpMockToolServer(scenario, options);
  const init = await fetch(server.url, { method: 'POST', headers: HEADERS, body: INIT });
  await init.text();
  return { s: server, sid: init.headers.get('mcp-session-id')! };
}

/** Polls the journal (at most 5 s) until an entry matches. */
async function journaled(s: RunningMockToolServer, what: string, match: (e: ToolJournalEntry) => boolean) {
  const deadline = Date.now() + 5_000;
  while (!s.journal().some(match)) {
    if (Date.now() > deadline) throw new Error(`not journaled within 5 s: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const idOf = (value: unknown) => (value as { id?: unknown } | undefined)?.id;
const sentReply = (id: number) => (e: ToolJournalEntry) =>
  e.direction === 'sent' && idOf(e.value) === id && 'result' in (e.value as object);

/** A POST whose answer stream the test can leave: `firstData` is what arrived first. */
function post(s: RunningMockToolServer, sid: string, body: string) {
  let leave = () => {};
  const firstData = new Promise<string>((resolve) => {
    const req = httpRequest(
      s.url,
      { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': sid } },
      (res) => {
        res.setEncoding('utf8');
        res.once('data', (c: string) => resolve(c));
      },
    );
    req.on('error', () => {});
    req.end(body);
    leave = () => req.destroy();
  });
  return { firstData, leave: () => leave() };
}

async function getStatus(s: RunningMockToolServer, sid: string, lastEventId: string) {
  const ac = new AbortController();
  const r = await fetch(s.url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': lastEventId },
    signal: ac.signal,
  });
  const firstEvent =
    r.status === 200
      ? Buffer.from((await r.body!.getReader().read()).value ?? []).toString()
      : await r.text();
  ac.abort();
  return { status: r.status, firstEvent };
}

test('an answer stream its client left before any event is forgotten once answered: naming it resumes nothing', async () => {
  const { s, sid } = await start({ faults: { replyDelayMs: 300, keepAliveMs: 50 } });
  const call = post(s, sid, callOf(2, 'x'));
  await journaled(s, 'the call', (e) => e.direction === 'received' && idOf(e.value) === 2);
  call.leave();
  await journaled(s, 'the reply', sentReply(2));
  // Stream 2 (initialize's was 1) is no longer kept: its id opens the session's own GET stream
  // (a keep-alive comment first), where a kept stream would refuse an event it never sent (400).
  const { status, firstEvent } = await getStatus(s, sid, '2-5');
  expect(status).toBe(200);
  expect(firstEvent).toContain(': keep-alive');
});

test('answer streams kept for resumption are bounded per session: past the queue limit the oldest are forgotten', async () => {
  const lines: string[] = [];
  const { s, sid } = await start(
    { faults: { pingFirst: true, pingWaitMs: 300 } },
    { sessionQueueLimit: 250_000, log: (line) => lines.push(line) },
  );
  // Each client sees the mock's ping on its answer stream (an event id it could resume after), then leaves.
  for (let i = 0; i < 4; i++) {
    const id = 10 + i;
    const call = post(s, sid, callOf(id, 'y'.repeat(100_000)));
    expect(await call.firstData).toMatch(/^id: \d+-1\n/);
    call.leave();
    await journaled(s, `reply ${id}`, sentReply(id));
  }
  expect(lines.some((l) => /answer stream 2 forgotten/.test(l))).toBe(true);
  // The newest (stream 5) is still kept: the GET naming its ping gets the reply.
  const newest = await getStatus(s, sid, '5-1');
  expect(newest.status).toBe(200);
  expect(newest.firstEvent).toContain('"id":13');
});

test('a JSON answer to a batch is an array, even when the batch owes one response', async () => {
  const { s, sid } = await start({ faults: { httpAnswer: 'json' } });
  const headers = { ...HEADERS, 'mcp-session-id': sid };
  const batch = [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  const mixed = await fetch(s.url, { method: 'POST', headers, body: JSON.stringify(batch) });
  const alone = await fetch(s.url, {
    method: 'POST',
    headers,
    body: JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'ping' }]),
  });
  const single = await fetch(s.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
  });
  expect(await mixed.json()).toMatchObject([{ id: 2, result: { tools: expect.any(Array) } }]);
  expect(await alone.json()).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  expect(await single.json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
});
