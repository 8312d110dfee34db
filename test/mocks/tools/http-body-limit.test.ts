import { request as httpRequest } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import {
  type RunningMockToolServer,
  startMockToolServer,
  startStreamableHttpMockToolServer,
} from '../../../src/mocks/tools/index.js';
import { STREAMABLE_BODY_LIMIT_BYTES } from '../../../src/servers/http/streamable-endpoint.js';

// A tools/call may carry a file's content: the mocks take POST bodies as large as the reference
// server does (4 MiB), and one past the limit is answered 413 and journaled with its start, as
// every message is ("record first, assert later").

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

async function session(s: RunningMockToolServer): Promise<string> {
  const init = await fetch(s.url, { method: 'POST', headers: HEADERS, body: INIT });
  await init.text();
  return init.headers.get('mcp-session-id')!;
}

test('Streamable HTTP: a 2 MiB tools/call is answered and journaled (cut at the journal bound, with its size)', async () => {
  server = await startStreamableHttpMockToolServer({ faults: { httpAnswer: 'json' } });
  const sid = await session(server);
  const body = callOf(2, 'a'.repeat(2 * 1024 * 1024));
  const r = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': sid }, body });
  expect(r.status).toBe(200);
  expect(await r.json()).toMatchObject({ id: 2, result: { content: [{ type: 'text' }] } });
  const entry = server
    .journal()
    .find((e) => e.direction === 'received' && e.text.startsWith('{"jsonrpc":"2.0","id":2'));
  expect(entry?.http?.status).toBe(200);
  expect(entry?.truncated).toEqual({ bytes: Buffer.byteLength(body) });
});

test('SSE: a 2 MiB POST is accepted (202)', async () => {
  server = await startMockToolServer();
  const stream = await fetch(server.url);
  const reader = stream.body!.getReader();
  const { value } = await reader.read();
  const endpoint = new URL(/data: (\S+)/.exec(Buffer.from(value!).toString())![1]!, server.url);
  const r = await fetch(endpoint, {
    method: 'POST',
    headers: HEADERS,
    body: callOf(2, 'b'.repeat(2 * 1024 * 1024)),
  });
  await reader.cancel();
  expect(r.status).toBe(202);
});

test("Streamable HTTP: a body past the default limit (the reference endpoint's) gets 413 and is journaled with its start", async () => {
  server = await startStreamableHttpMockToolServer();
  const sid = await session(server);
  const body = callOf(3, 'c'.repeat(STREAMABLE_BODY_LIMIT_BYTES));
  const r = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': sid }, body });
  expect(r.status).toBe(413);
  expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: /Payload Too Large/ } });
  const entry = server.journal().find((e) => e.http?.status === 413);
  expect(entry).toMatchObject({
    session: sid,
    kind: 'message',
    truncated: { bytes: Buffer.byteLength(body) },
  });
  expect(entry?.text.startsWith('{"jsonrpc":"2.0","id":3,"method":"tools/call"')).toBe(true);
  expect(Buffer.byteLength(entry!.text)).toBe(server.live.bounds.bodyBytes);
});

test('SSE: a chunked body (no Content-Length) past bodyLimit gets 413 {error} and is journaled under its session', async () => {
  server = await startMockToolServer({}, { bodyLimit: 10_000 });
  const url = new URL('/messages?sessionId=some-session', server.url);
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.write(callOf(4, 'd'.repeat(6_000)).slice(0, -3));
    req.end('d'.repeat(6_000));
  });
  expect(status).toBe(413);
  expect(JSON.parse(text)).toEqual({ error: expect.stringMatching(/past the limit of 10000 bytes/) });
  const entry = server.journal().find((e) => e.http?.status === 413);
  expect(entry).toMatchObject({ session: 'some-session', transport: 'sse', kind: 'message' });
  expect(entry?.text.startsWith('{"jsonrpc":"2.0","id":4')).toBe(true);
  expect(entry?.truncated?.bytes).toBeGreaterThan(10_000);
});
