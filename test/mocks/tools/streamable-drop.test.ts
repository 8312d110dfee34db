import { afterEach, expect, test } from 'vitest';
import {
  droppedAnswerStreams,
  type RunningMockToolServer,
  startStreamableHttpMockToolServer,
} from '../../../src/mocks/tools/index.js';

// dropAnswerStream ends the answer stream of the first POST that carries a tools/call, a batch's
// too (MCP: a peer MUST support receiving batches), and journals that it did: a check blames a
// client for not resuming only a stream the mock broke.

let server: RunningMockToolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ACCEPT = 'application/json, text/event-stream';

function post(url: string, body: unknown, session?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body: JSON.stringify(body),
  });
}

async function initialized(url: string): Promise<string> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await init.text();
  const session = init.headers.get('mcp-session-id')!;
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  return session;
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: {} },
});

test('a tools/call in a one-element batch has its answer stream dropped after the id-only event, and the drop is journaled', async () => {
  server = await startStreamableHttpMockToolServer({ faults: { dropAnswerStream: true } });
  const session = await initialized(server.url);
  const dropped = await post(server.url, [call(2)], session);
  expect(await dropped.text()).toBe('id: 2-0\nretry: 100\ndata: \n\n');
  const records = droppedAnswerStreams(server.journal());
  expect(records.map((e) => [e.session, e.direction, e.kind])).toEqual([[session, 'sent', 'closed']]);
  expect(records[0]!.text).toMatch(/stream 2, after its id-only event 2-0 \(retry: 100\)$/);
  // The rest of the stream, the batch's answer, comes to the GET that resumes it.
  const resumed = await fetch(server.url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': '2-0' },
  });
  expect(resumed.status).toBe(200);
  expect(await resumed.text()).toContain('"id":2,"result"');
});

test('a batch without tools/call is answered whole, and only the first call is dropped', async () => {
  server = await startStreamableHttpMockToolServer({ faults: { dropAnswerStream: true } });
  const session = await initialized(server.url);
  const listed = await post(server.url, [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }], session);
  expect(await listed.text()).toContain('"id":2,"result"');
  expect(await (await post(server.url, call(3), session)).text()).toBe('id: 3-0\nretry: 100\ndata: \n\n');
  expect(await (await post(server.url, [call(4)], session)).text()).toContain('"id":4,"result"');
  expect(droppedAnswerStreams(server.journal())).toHaveLength(1);
});
