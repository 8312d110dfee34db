import { afterEach, describe, expect, test } from 'vitest';
import {
  answerTo,
  MOCK_REQUEST_ID_BASE,
  type RunningMockToolServer,
  startMockToolServer,
  type ToolScenarioInput,
} from '../../../src/mocks/tools/index.js';
import { INIT, openStream, post } from './sse-client.js';

let server: RunningMockToolServer | undefined;
let streams: { close(): void }[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await server?.close();
  server = undefined;
});

async function session(scenario: ToolScenarioInput = {}) {
  server = await startMockToolServer(scenario);
  const stream = await openStream(server.url);
  streams.push(stream);
  const endpoint = await stream.next((f) => f.event === 'endpoint');
  const url = new URL(endpoint.data, new URL(server.url).origin).href;
  return { server, stream, endpoint: endpoint.data, url };
}

describe('SSE mock tool server (spec "Tool server, SSE transport")', () => {
  test('the first event is endpoint, a path with the sessionId query parameter', async () => {
    const { endpoint, stream } = await session();
    expect(stream.frames[0]?.event).toBe('endpoint');
    expect(endpoint).toMatch(
      /^\/messages\?sessionId=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  test('an absolute endpoint is the whole URL of the same server', async () => {
    const { endpoint } = await session({ faults: { endpoint: 'absolute' } });
    expect(endpoint.startsWith(`${new URL(server!.url).origin}/messages?sessionId=`)).toBe(true);
  });

  test('a POST is answered 202 and the reply arrives on the stream as event message', async () => {
    const { url, stream } = await session();
    const r = await post(url, INIT);
    expect(r.status).toBe(202);
    const reply = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    expect(reply).toMatchObject({
      id: 1,
      result: { protocolVersion: '2024-11-05', capabilities: { tools: {} } },
    });
  });

  test('the postStatus fault answers 200 instead of 202', async () => {
    const { url } = await session({ faults: { postStatus: 200 } });
    expect((await post(url, INIT)).status).toBe(200);
  });

  test('a POST for an unknown session gets 400 with a string error field, and is journaled', async () => {
    server = await startMockToolServer();
    const r = await post(`${new URL(server.url).origin}/messages?sessionId=nope`, INIT);
    expect(r.status).toBe(400);
    expect(typeof ((await r.json()) as { error: unknown }).error).toBe('string');
    expect(server.journal().at(-1)).toMatchObject({
      direction: 'received',
      kind: 'message',
      http: { status: 400 },
    });
  });

  test('a body that is not JSON is journaled as sent, before validation, and answered with a parse error', async () => {
    const { url, stream } = await session();
    await post(url, '{"jsonrpc": "2.0", broken');
    const reply = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    expect(reply).toMatchObject({ id: null, error: { code: -32700 } });
    const entry = server!.journal().find((e) => e.direction === 'received' && e.kind === 'message');
    expect(entry?.text).toBe('{"jsonrpc": "2.0", broken');
    expect(entry?.parseError).toBeDefined();
  });

  test('tools/call echoes its arguments by default and a scripted call returns its error', async () => {
    const { url, stream } = await session({
      calls: { fail: { error: { code: -32000, message: 'scripted' } } },
    });
    await post(url, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { a: [1] } },
    });
    await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fail' } });
    await post(url, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'missing' } });
    const replies = [];
    for (let i = 0; i < 3; i++)
      replies.push(JSON.parse((await stream.next((f) => f.event === 'message')).data));
    expect(replies[0]).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: '{"a":[1]}' }] },
    });
    expect(replies[1]).toMatchObject({ id: 3, error: { code: -32000, message: 'scripted' } });
    expect(replies[2]).toMatchObject({ id: 4, error: { message: expect.stringContaining('missing') } });
  });

  test('unknown notifications go out before every reply', async () => {
    const { url, stream } = await session({ faults: { notifications: 2 } });
    await post(url, INIT);
    const first = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    const second = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    const third = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    expect(first.method).toMatch(/^notifications\/x-wirecheck\//);
    expect(second.method).toMatch(/^notifications\/x-wirecheck\//);
    expect(third.id).toBe(1);
  });

  test('pingFirst sends a ping before the tools/call reply and journals the answer', async () => {
    const { url, stream } = await session({ faults: { pingFirst: true } });
    await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo' } });
    const ping = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    expect(ping).toEqual({ jsonrpc: '2.0', id: MOCK_REQUEST_ID_BASE, method: 'ping' });
    await post(url, { jsonrpc: '2.0', id: ping.id, result: {} });
    const reply = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    expect(reply.id).toBe(2);
    expect(answerTo(server!.journal(), MOCK_REQUEST_ID_BASE)?.text).toContain('"result":{}');
  });

  test('comment frames go before every event', async () => {
    const { url, stream } = await session({ faults: { commentFrames: true } });
    await post(url, INIT);
    await stream.next((f) => f.event === 'message');
    expect(stream.comments.length).toBeGreaterThanOrEqual(2);
  });

  test('closeStreamAfter ends the stream after that many messages; a later POST gets 400', async () => {
    const { url, stream } = await session({ faults: { closeStreamAfter: 1 } });
    await post(url, INIT);
    await stream.next((f) => f.event === 'message');
    await stream.ended;
    expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(400);
    expect(server!.journal().some((e) => e.kind === 'closed' && e.direction === 'sent')).toBe(true);
  });
});
