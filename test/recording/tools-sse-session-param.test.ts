import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { startSseRecordingProxy } from '../../src/recording/tools/index.js';

// The Python SDK and FastMCP announce `/messages/?session_id=...`: the recorder looked only for
// `sessionId`, so every client message of such a session was lost.

/** An SSE tool server announcing its POST endpoint with `param`; it answers one request, then ends the stream. */
async function server(param: string) {
  let stream: ServerResponse | undefined;
  const http = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: endpoint\ndata: /messages/?${param}=abc123\n\n`);
      stream = res;
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(parts).toString('utf8')) as { id: number };
      res.writeHead(202).end('Accepted');
      stream?.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n\n`);
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse` };
}

describe('wirecheck record tools --sse: the session parameter the server names', () => {
  test.each(['sessionId', 'session_id'])('a POST to ?%s=... is recorded in its session', async (param) => {
    const upstream = await server(param);
    const unmatched: string[] = [];
    const proxy = await startSseRecordingProxy({
      upstream: upstream.url,
      onUnmatchedPost: (url) => unmatched.push(url),
    });
    try {
      const events = await fetch(proxy.url, { headers: { accept: 'text/event-stream' } });
      const reader = events.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (let reads = 0; reads < 100 && !text.includes('\n\n'); reads++) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const endpoint = /data: (.*)/.exec(text)?.[1];
      expect(endpoint).toBe(`/messages/?${param}=abc123`);
      const post = await fetch(new URL(endpoint!, proxy.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(post.status).toBe(202);
      for (let reads = 0; reads < 100 && !(await reader.read()).done; reads++);
      await proxy.settled();
    } finally {
      await proxy.close();
      upstream.http.close();
    }
    expect(unmatched).toEqual([]);
    expect(proxy.sessions[0]?.messages.map((m) => [m.direction, m.post?.status])).toEqual([
      ['client->server', 202],
      ['server->client', undefined],
    ]);
  });
});
