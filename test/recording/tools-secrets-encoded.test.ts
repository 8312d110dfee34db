import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  bodyOfChunks,
  readFixtureFile,
  type ToolSession,
  validateFixture,
} from '../../src/fixtures/index.js';
import {
  startSseRecordingProxy,
  startStreamableHttpRecordingProxy,
} from '../../src/recording/tools/index.js';
import { encodedForms, KEY, readingsWith, SLASH_KEY } from './secret-forms.js';

// A tool server that echoes the client's credential may write it encoded: base64 (a Basic
// pair), JSON `\u` escapes (some or all characters), `\/`, percent-encoding. The stdio
// recorder scrubbed all of these; the SSE and Streamable HTTP recorders only the key as is.

const credentials = { 'x-api-key': KEY, authorization: `Bearer ${SLASH_KEY}` };
/** The forms as a JSON array written by hand: the escapes in them are JSON's, decoding to the key. */
const echoed = `[${[...encodedForms(KEY), ...encodedForms(SLASH_KEY)].map((f) => `"${f}"`).join(',')}]`;
const answer = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{"echoed":${echoed}}}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-tools-encoded-'));
  // The answer is JSON, and decodes to the keys: what the recording must not keep.
  const parsed = JSON.parse(answer(1)).result.echoed as string[];
  expect(parsed.filter((s) => s === KEY || s === SLASH_KEY).length).toBeGreaterThanOrEqual(6);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Every line of the one fixture written to `out`, and the session. */
async function written(out: string): Promise<{ lines: string[]; session: ToolSession }> {
  const files = await readdir(out);
  expect(files).toHaveLength(1);
  const file = join(out, files[0]!);
  return {
    lines: (await readFile(file, 'utf8')).split('\n'),
    session: (await readFixtureFile(file)) as ToolSession,
  };
}

function expectNoKey(lines: readonly string[]): void {
  for (const line of lines) {
    expect(readingsWith(line, KEY), line).toEqual([]);
    expect(readingsWith(line, SLASH_KEY), line).toEqual([]);
  }
}

describe('record tools: a credential echoed encoded is not written', () => {
  test('--sse: in the stream chunks, its messages and the endpoint', async () => {
    let stream: ServerResponse | undefined;
    const server = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // The endpoint carries a form of the key too (a server that puts it in the URL).
        res.write(
          `event: endpoint\ndata: /messages?sessionId=abc&k=${encodeURIComponent(KEY).replace(/-/g, '%2D')}\n\n`,
        );
        stream = res;
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(202).end('Accepted');
        stream?.end(`event: message\ndata: ${answer(1)}\n\n`);
      });
    });
    const upstream = await listen(server);
    const out = join(dir, 'sse');
    const proxy = await startSseRecordingProxy({ upstream: `${upstream}/sse`, outDir: out });
    try {
      const events = await fetch(proxy.url, { headers: { accept: 'text/event-stream', ...credentials } });
      const reader = events.body!.getReader();
      let text = '';
      for (let reads = 0; reads < 100 && !text.includes('\n\n'); reads++) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const endpoint = /data: (.*)/.exec(text)![1]!;
      const post = await fetch(new URL(endpoint, proxy.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...credentials },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' }),
      });
      expect(post.status).toBe(202);
      for (let reads = 0; reads < 100 && !(await reader.read()).done; reads++);
      await proxy.settled();
    } finally {
      await proxy.close();
      server.close();
    }
    const { lines, session } = await written(out);
    expectNoKey(lines);
    expect(validateFixture(session).ok).toBe(true);
    // The frames are intact: the recorded stream still holds its two events, the answer still JSON.
    const body = bodyOfChunks(session.stream!.chunks).toString('utf8');
    expect(body.match(/^event: /gm)).toHaveLength(2);
    const reply = session.messages.find((m) => m.direction === 'server->client')!;
    expect(JSON.parse(reply.text).result.echoed).toHaveLength(16);
    expect(body).toContain(reply.text);
    expect(body).toContain(`data: ${session.stream!.endpoint}\n`);
  });

  test('--http: in JSON answers and in answer streams', async () => {
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (b: Buffer) => parts.push(b));
      req.on('end', () => {
        const { id, method } = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
          id: number;
          method: string;
        };
        if (method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(answer(id));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: ${answer(id)}\n\n`);
      });
    });
    const upstream = await listen(server);
    const out = join(dir, 'http');
    const proxy = await startStreamableHttpRecordingProxy({ upstream: `${upstream}/mcp`, outDir: out });
    try {
      const post = (id: number, method: string, session?: string) =>
        fetch(proxy.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...credentials,
            ...(session && { 'mcp-session-id': session }),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, method }),
        }).then((r) => r.text());
      expect(JSON.parse(await post(1, 'initialize')).result.echoed).toHaveLength(16);
      expect(await post(2, 'tools/call', 's1')).toContain('event: message');
      await proxy.settled();
    } finally {
      await proxy.close();
      server.close();
    }
    const { lines, session } = await written(out);
    expectNoKey(lines);
    expect(validateFixture(session).ok).toBe(true);
    const replies = session.messages.filter((m) => m.direction === 'server->client');
    expect(replies.map((m) => JSON.parse(m.text).result.echoed.length)).toEqual([16, 16]);
  });
});
