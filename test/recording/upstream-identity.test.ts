import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bytesOfChunk } from '../../src/fixtures/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';
import {
  startSseRecordingProxy,
  startStreamableHttpRecordingProxy,
} from '../../src/recording/tools/index.js';

// A compressed reply was recorded as its compressed bytes: the by-value scrub never saw a key
// echoed in it, and neither did the frame and message readers. The proxies ask the upstream for
// `identity`; the recording keeps what the client asked for.

const KEY = 'sk-test-IDENTITY-0123456789abcdef';

/** `accept-encoding` of every request the upstream got, in order. */
const seen: (string | undefined)[] = [];
let upstream: Server;
let origin: string;
let stream: { write(text: string): void; end(): void } | undefined;

const gzipAsked = (req: IncomingMessage) => /gzip/.test(req.headers['accept-encoding'] ?? '');

/** Answer `text`, gzipped when the request takes gzip. */
function answer(req: IncomingMessage, res: ServerResponse, status: number, type: string, text: string) {
  const headers: Record<string, string> = { 'content-type': type, 'mcp-session-id': 'h1' };
  if (!gzipAsked(req)) return void res.writeHead(status, headers).end(text);
  res.writeHead(status, { ...headers, 'content-encoding': 'gzip' }).end(gzipSync(text));
}

/** An event stream, gzipped (flushed at each event) when the request takes gzip. */
function openStream(req: IncomingMessage, res: ServerResponse) {
  const zipped = gzipAsked(req);
  res.writeHead(200, { 'content-type': 'text/event-stream', ...(zipped && { 'content-encoding': 'gzip' }) });
  if (!zipped) return { write: (t: string) => void res.write(t), end: () => void res.end() };
  const gzip = createGzip();
  gzip.pipe(res);
  return { write: (t: string) => void gzip.write(t, () => gzip.flush()), end: () => void gzip.end() };
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push(req.headers['accept-encoding']);
    const credential = req.headers['x-api-key'] ?? req.headers.authorization;
    if (req.method === 'GET') {
      stream = openStream(req, res);
      stream.write('event: endpoint\ndata: /messages?sessionId=s1\n\n');
      return;
    }
    req.resume();
    req.on('end', () => {
      const echoed = { jsonrpc: '2.0', id: 1, result: { seen: `credential ${credential}` } };
      if (req.url === '/v1/messages') {
        const error = {
          type: 'error',
          error: { type: 'authentication_error', message: `bad ${credential}` },
        };
        answer(req, res, 401, 'application/json', JSON.stringify(error));
      } else if (req.url === '/mcp') answer(req, res, 200, 'application/json', JSON.stringify(echoed));
      else {
        answer(req, res, 202, 'text/plain', `accepted for ${credential}`);
        stream?.write(`event: message\ndata: ${JSON.stringify(echoed)}\n\n`);
        stream?.end();
      }
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

/** A request as a client that takes gzip sends it; the answer's body decompressed if it came so. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: Readable }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent: false, headers: { 'accept-encoding': 'gzip', ...headers } },
      (res) =>
        resolve({
          status: res.statusCode ?? 0,
          body: res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res,
        }),
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function textOf(body: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

describe('the recording proxies ask the upstream for identity: a compressed reply would pass the secret scrub', () => {
  test('messages proxy: the echoed key is scrubbed from the recorded reply; the recorded request keeps the client’s accept-encoding', async () => {
    seen.length = 0;
    const proxy = await startRecordingProxy({ upstream: origin });
    try {
      const reply = await send(`${proxy.url}/v1/messages`, 'POST', { 'x-api-key': KEY }, '{}');
      expect(reply.status).toBe(401);
      expect(await textOf(reply.body)).toContain(KEY);
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    const [exchange] = proxy.exchanges;
    expect(exchange?.request.headers['accept-encoding']).toBe('gzip');
    expect(exchange?.response.headers['content-encoding']).toBeUndefined();
    const recorded = Buffer.concat(exchange!.response.chunks.map(bytesOfChunk)).toString('utf8');
    expect(recorded).not.toContain(KEY);
    expect(JSON.parse(recorded)).toMatchObject({
      error: { message: expect.stringContaining('bad [redacted') },
    });
    expect(seen).toEqual(['identity']);
  });

  test('SSE proxy: the stream and the POST answer are recorded as text, the echoed key scrubbed', async () => {
    seen.length = 0;
    const proxy = await startSseRecordingProxy({ upstream: `${origin}/sse` });
    const auth = { authorization: `Bearer ${KEY}` };
    try {
      const events = (await send(proxy.url, 'GET', { accept: 'text/event-stream', ...auth })).body;
      let text = '';
      let announced: (endpoint: string | undefined) => void = () => {};
      const endpointSeen = new Promise<string | undefined>((resolve) => (announced = resolve));
      events.on('data', (part: Buffer) => {
        text += part.toString('utf8');
        if (text.includes('\n\n')) announced(/data: (.*)/.exec(text)?.[1]);
      });
      const rest = new Promise<string>((resolve) => events.on('close', () => resolve(text)));
      // A gzipped stream held no frame the proxy could read: its endpoint never came.
      const waited = setTimeout(() => announced(undefined), 5_000);
      const endpoint = await endpointSeen;
      clearTimeout(waited);
      expect(endpoint).toBe('/messages?sessionId=s1');
      const post = await send(
        `${new URL(proxy.url).origin}${endpoint}`,
        'POST',
        auth,
        '{"jsonrpc":"2.0","id":1}',
      );
      expect(post.status).toBe(202);
      await textOf(post.body);
      expect(await rest).toContain(KEY);
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    const [session] = proxy.sessions;
    expect(session?.stream?.requestHeaders['accept-encoding']).toBe('gzip');
    expect(JSON.stringify(session)).not.toContain(KEY);
    expect(session?.messages.map((m) => [m.direction, m.post?.body])).toEqual([
      ['client->server', 'accepted for [redacted]'],
      ['server->client', undefined],
    ]);
    expect(session?.messages[1]?.text).toContain('credential [redacted');
    expect(seen).toEqual(['identity', 'identity']);
  });

  test('Streamable HTTP proxy: the JSON answer is recorded as a message, the echoed key scrubbed', async () => {
    seen.length = 0;
    const proxy = await startStreamableHttpRecordingProxy({ upstream: `${origin}/mcp` });
    try {
      const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
      const reply = await send(proxy.url, 'POST', { authorization: `Bearer ${KEY}` }, initialize);
      expect(await textOf(reply.body)).toContain(KEY);
    } finally {
      await proxy.close();
    }
    const [session] = proxy.sessions;
    expect(JSON.stringify(session)).not.toContain(KEY);
    expect(session?.messages.map((m) => m.direction)).toEqual(['client->server', 'server->client']);
    expect(session?.messages[0]?.post?.body).toContain('credential [redacted]');
    expect(session?.messages[1]?.text).toContain('credential [redacted');
    expect(seen).toEqual(['identity']);
  });
});
