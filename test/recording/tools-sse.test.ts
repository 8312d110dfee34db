import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ToolClient } from '../../src/clients/tools/index.js';
import {
  bodyOfChunks,
  readFixtureFile,
  type ToolSession,
  validateFixture,
} from '../../src/fixtures/index.js';
import { startMockToolServer } from '../../src/mocks/tools/index.js';
import { startSseRecordingProxy } from '../../src/recording/tools/index.js';
import { startToolServer } from '../../src/servers/tools/index.js';
import { SseClientTransport } from '../../src/transports/index.js';
import { cli } from '../cli/fake-suites.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-sse-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('wirecheck record tools --sse (spec "Tool server, SSE transport")', () => {
  test('relays a session with the reference server and records every frame (keep-alive comments too) and every POST', async () => {
    const server = await startToolServer({ keepAliveMs: 40 });
    const out = join(dir, 'reference');
    const proxy = await startSseRecordingProxy({ upstream: server.url, outDir: out });
    const transport = new SseClientTransport(proxy.url, {
      headers: { authorization: 'Bearer sk-secret-123456' },
    });
    const client = new ToolClient(transport);
    try {
      await client.connect();
      const echo = await client.callTool('echo', { text: 'through the proxy' });
      expect(JSON.stringify(echo)).toContain('through the proxy');
      // Long enough for keep-alive comments between messages.
      await sleep(130);
      await client.listTools();
      // Relative endpoint: the client resolves it against the proxy, session id as the server's.
      expect(transport.endpoint?.origin).toBe(new URL(proxy.url).origin);
    } finally {
      await client.close();
      await proxy.settled();
      await proxy.close();
      await server.close();
    }
    const files = await readdir(out);
    expect(files).toHaveLength(1);
    const session = (await readFixtureFile(join(out, files[0]!))) as ToolSession;
    expect(session.transport).toBe('sse');
    expect(session.server).toBe(server.url);
    const stream = session.stream!;
    expect(stream.status).toBe(200);
    expect(stream.endpoint).toMatch(/^\/messages\?sessionId=/);
    expect(stream.endpoint).toContain(transport.sessionId);
    expect(stream.end).toBe('client-aborted');
    expect(stream.requestHeaders.authorization).toBe('Bearer [redacted]');
    const body = bodyOfChunks(stream.chunks).toString();
    expect(body.startsWith('event: endpoint\n')).toBe(true);
    expect(body).toContain(': keep-alive\n\n');
    const posts = session.messages.filter((m) => m.direction === 'client->server');
    expect(posts.map((m) => JSON.parse(m.text).method)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
      'tools/list',
    ]);
    expect(posts.every((m) => m.post?.status === 202)).toBe(true);
    const replies = session.messages.filter((m) => m.direction === 'server->client');
    expect(replies).toHaveLength(3);
    for (const reply of replies) expect(body).toContain(`data: ${reply.text}\n\n`);
    const times = session.messages.map((m) => m.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const validation = validateFixture(session);
    expect(validation.ok).toBe(true);
    expect(validation.recorded.join()).toMatch(/comment frame\(s\) \(keep-alive\)/);
  }, 20_000);

  test('an absolute endpoint is rewritten to the proxy, keeping the session id; the recording keeps the original', async () => {
    const mock = await startMockToolServer({ faults: { endpoint: 'absolute' } });
    const proxy = await startSseRecordingProxy({ upstream: mock.url });
    const transport = new SseClientTransport(proxy.url);
    const client = new ToolClient(transport);
    try {
      await client.connect();
      await client.callTool('echo', { text: 'x' });
      expect(transport.endpoint?.origin).toBe(new URL(proxy.url).origin);
    } finally {
      await client.close();
      await proxy.settled();
      await proxy.close();
      await mock.close();
    }
    const [session] = proxy.sessions;
    expect(session?.stream?.endpoint).toBe(
      `${new URL(mock.url).origin}/messages?sessionId=${transport.sessionId}`,
    );
    // Every POST reached the mock through the proxy.
    expect(mock.journal().filter((e) => e.http?.method === 'POST')).toHaveLength(3);
    expect(validateFixture(session!).ok).toBe(true);
  }, 20_000);

  test('the command takes exactly one of --stdio and --sse (usage error, exit 2)', async () => {
    const both = await cli([
      'record',
      'tools',
      '--stdio',
      'true',
      '--sse',
      'http://127.0.0.1:1/sse',
      '--out',
      dir,
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --stdio CMD, --sse URL and --http URL/);
    expect((await cli(['record', 'tools', '--out', dir])).code).toBe(2);
  });

  test('--sse through the CLI prints the proxy stream URL first and exits 0 on SIGINT/SIGTERM', async () => {
    const server = await startToolServer({ keepAliveMs: 0 });
    const stop = new AbortController();
    const run = cli(['record', 'tools', '--sse', server.url, '--out', join(dir, 'cli')], {
      shutdown: stop.signal,
    });
    await sleep(300);
    stop.abort();
    const done = await run;
    await server.close();
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse\n$/);
    expect(done.stderr).toContain(`recording ${server.url} into `);
  });
});

/** A node:http server on 127.0.0.1, port 0; its origin and a close that ends every connection. */
async function listen(
  handler: Parameters<typeof createServer>[1],
): Promise<{ origin: string; close(): Promise<void> }> {
  const srv: Server = createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

/** An SSE upstream whose `endpoint` event carries `endpoint`, its stream held open. */
function announcing(endpoint: string) {
  return listen((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
  });
}

describe('wirecheck record tools --sse: an endpoint the server points elsewhere', () => {
  test('POSTs relayed to another origin carry no credential header; other headers go on', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const other = await listen((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => res.writeHead(202).end('Accepted'));
    });
    const upstream = await announcing(`${other.origin}/messages?sessionId=s1`);
    const proxy = await startSseRecordingProxy({ upstream: `${upstream.origin}/sse` });
    const transport = new SseClientTransport(proxy.url, {
      headers: {
        authorization: 'Bearer sk-secret-123456',
        'x-api-key': 'k-secret-654321',
        'x-trace': 'kept',
      },
    });
    try {
      await transport.start();
      // The proxy rewrote the endpoint to itself, so the client sent its headers to the proxy.
      expect(transport.endpoint?.origin).toBe(new URL(proxy.url).origin);
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    } finally {
      await transport.close();
      await proxy.close();
      await upstream.close();
      await other.close();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]?.authorization).toBeUndefined();
    expect(seen[0]?.['x-api-key']).toBeUndefined();
    expect(seen[0]?.['x-trace']).toBe('kept');
  }, 20_000);

  test('an endpoint that is not http(s) gets its POSTs answered 502, naming it; the proxy goes on', async () => {
    const upstream = await announcing('ftp://127.0.0.1/messages?sessionId=s1');
    const proxy = await startSseRecordingProxy({ upstream: `${upstream.origin}/sse` });
    const transport = new SseClientTransport(proxy.url);
    transport.onerror = () => {};
    try {
      await transport.start();
      await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow(
        /HTTP 502.*endpoint on ftp:\/\/127\.0\.0\.1, which is not http\(s\)/,
      );
    } finally {
      await transport.close();
      await proxy.close();
      await upstream.close();
    }
  }, 20_000);
});

describe('wirecheck record tools --sse: no secret reaches the fixture', () => {
  test('a token the client presents (header and query) and the server echoes back is redacted everywhere', async () => {
    const token = 'tok-SECRET-ECHOED-0123456789';
    // A server that echoes the token in its result, as a careless one may.
    const server = await startMockToolServer({
      calls: { echo: { result: { content: [{ type: 'text', text: `your token is ${token}` }] } } },
    });
    const out = join(dir, 'echo');
    const proxy = await startSseRecordingProxy({
      upstream: `${server.url}?access_token=${token}`,
      outDir: out,
    });
    const transport = new SseClientTransport(proxy.url, { headers: { authorization: `Bearer ${token}` } });
    const client = new ToolClient(transport);
    try {
      await client.connect();
      const result = await client.callTool('echo', { text: 'x' });
      // The client sees what the server sent: redaction is of the recording only.
      expect(JSON.stringify(result)).toContain(token);
    } finally {
      await client.close();
      await proxy.settled();
      await proxy.close();
      await server.close();
    }
    const [file] = await readdir(out);
    const text = await readFile(join(out, file!), 'utf8');
    expect(text).not.toContain(token);
    const session = (await readFixtureFile(join(out, file!))) as ToolSession;
    expect(session.stream?.path).toBe('/sse?access_token=[redacted]');
    expect(session.stream?.requestHeaders.authorization).toBe('Bearer [redacted]');
    expect(session.messages.some((m) => /your token is \[redacted\**\]/.test(m.text))).toBe(true);
    expect(validateFixture(session).ok).toBe(true);
  });
});

describe('wirecheck record tools --sse: the endpoint event', () => {
  test('an endpoint that carries the token is recorded masked, as the stream chunk that brought it', async () => {
    const token = 'tok-ENDPOINT-0123456789';
    // A server that hands the client's token on into the POST endpoint it announces.
    const upstream = await announcing(`/messages?sessionId=s1&access_token=${token}`);
    const out = join(dir, 'endpoint');
    const proxy = await startSseRecordingProxy({
      upstream: `${upstream.origin}/sse?access_token=${token}`,
      outDir: out,
    });
    const transport = new SseClientTransport(proxy.url);
    transport.onerror = () => {};
    try {
      await transport.start();
    } finally {
      await transport.close();
      await proxy.settled();
      await proxy.close();
      await upstream.close();
    }
    const [file] = await readdir(out);
    const text = await readFile(join(out, file!), 'utf8');
    expect(text).not.toContain(token);
    const session = (await readFixtureFile(join(out, file!))) as ToolSession;
    expect(session.stream?.endpoint).toMatch(/^\/messages\?sessionId=s1&access_token=\[redacted\**\]$/);
    // The recorded endpoint still equals the first event's data in the recorded chunks.
    expect(validateFixture(session).ok).toBe(true);
  });
});
