import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { ToolMessage } from '../../src/fixtures/index.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../src/protocol/jsonrpc/index.js';
import {
  createLineRecorder,
  recordStdioSession,
  startSseRecordingProxy,
  startStreamableHttpRecordingProxy,
} from '../../src/recording/tools/index.js';

// What a recorder keeps of a long text is its start. Cut first and scrubbed after, a secret
// across the cut was no longer whole, so it was not found and its first part was kept.

const SECRET = 'sk-test-SECRETVALUE-0123456789abcdef';
/** A start of SECRET too short to be anything else. */
const LEAK = SECRET.slice(0, 10);

async function listen(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a secret across the cut of a recorded text is replaced whole', () => {
  test('stdio lines: a line cut at the limit, a secret beginning before it', () => {
    const pushed: ToolMessage[] = [];
    const recorder = createLineRecorder('server->client', (m) => pushed.push(m), 64, [SECRET]);
    // A secret written a byte at a time is held past the cut all the same.
    for (const byte of Buffer.from(`${'x'.repeat(50)}${SECRET}${'y'.repeat(200)}\n`))
      recorder.feed(Buffer.of(byte), 1);
    recorder.feed(Buffer.from(`short ${SECRET}\n`), 2);
    expect(pushed.map((m) => [m.text, m.cut])).toEqual([
      [`${'x'.repeat(50)}[redacted]`, true],
      ['short [redacted]', undefined],
    ]);
  });

  test('record tools --stdio: a server line over 16 MiB ending in its command’s credential', async () => {
    const { session } = await recordStdioSession({
      command: `${JSON.stringify(process.execPath)} -e "process.stdout.write('x'.repeat(${DEFAULT_MAX_LINE_BYTES - 10}) + process.env.API_TOKEN + '\\n')"`,
      input: Readable.from([]),
      write: () => {},
      writeError: () => {},
      env: { PATH: process.env.PATH, API_TOKEN: SECRET },
    });
    const [line] = session!.messages;
    expect(line?.cut).toBe(true);
    expect(line?.text.endsWith(`${'x'.repeat(10)}[redacted]`)).toBe(true);
    expect(line?.text).not.toContain(LEAK);
  }, 20_000);

  test('record tools --http: the POST answer kept by its first 500 characters', async () => {
    const upstream = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ error: `${'x'.repeat(450)} bad credential ${req.headers.authorization}` }));
      });
    });
    const proxy = await startStreamableHttpRecordingProxy({ upstream: `${upstream.origin}/mcp` });
    try {
      const reply = await fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      });
      expect(await reply.text()).toContain(SECRET);
    } finally {
      await proxy.close();
      upstream.server.close();
    }
    const body = proxy.sessions[0]?.messages[0]?.post?.body;
    expect(body).toBe(`{"error":"${'x'.repeat(450)} bad credential [redacted]`);
  });

  test('record tools --sse: the POST answer kept by its first 500 characters, a long key arriving in small chunks', async () => {
    // Longer than the bytes the recorder used to keep (2,000): it must hold the whole of it.
    const longKey = `lk-${'0123456789abcdef'.repeat(160)}`;
    let stream: ServerResponse | undefined;
    const upstream = await listen((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages?sessionId=s1\n\n');
        stream = res;
        return;
      }
      req.resume();
      req.on('end', async () => {
        const answer = Buffer.from(`${'x'.repeat(480)}${req.headers['x-api-key']} and more`);
        res.writeHead(400, { 'content-type': 'text/plain' });
        for (let at = 0; at < answer.length; at += 256) {
          res.write(answer.subarray(at, at + 256));
          await new Promise((r) => setTimeout(r, 1));
        }
        res.end();
        stream?.end();
      });
    });
    const proxy = await startSseRecordingProxy({ upstream: `${upstream.origin}/sse` });
    try {
      const events = await fetch(proxy.url, {
        headers: { accept: 'text/event-stream', 'x-api-key': longKey },
      });
      const reader = events.body!.getReader();
      await reader.read();
      const post = await fetch(new URL('/messages?sessionId=s1', proxy.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': longKey },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(await post.text()).toContain(longKey);
      for (let reads = 0; reads < 100 && !(await reader.read()).done; reads++);
      await proxy.settled();
    } finally {
      await proxy.close();
      upstream.server.close();
    }
    const body = proxy.sessions[0]?.messages[0]?.post?.body;
    expect(body).toBe(`${'x'.repeat(480)}[redacted]`);
  });
});
