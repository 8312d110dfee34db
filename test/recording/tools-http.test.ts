import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ToolClient } from '../../src/clients/tools/index.js';
import { readFixtureFile, type ToolSession, validateFixture } from '../../src/fixtures/index.js';
import {
  startMockToolServer,
  startStreamableHttpMockToolServer,
  type ToolFaultsInput,
} from '../../src/mocks/tools/index.js';
import { startStreamableHttpRecordingProxy } from '../../src/recording/tools/index.js';
import { SseClientTransport, StreamableHttpClientTransport } from '../../src/transports/index.js';
import { cli } from '../cli/fake-suites.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-http-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SECRET = 'sk-secret-http-987654';

/** One session of the reference client through the proxy in front of the http mock; the fixture it wrote. */
async function record(faults: ToolFaultsInput, out: string) {
  const mock = await startStreamableHttpMockToolServer({ faults });
  const proxy = await startStreamableHttpRecordingProxy({ upstream: mock.url, outDir: out });
  const client = new ToolClient(
    new StreamableHttpClientTransport(proxy.url, { headers: { authorization: `Bearer ${SECRET}` } }),
  );
  let echo: unknown;
  try {
    await client.connect();
    echo = await client.callTool('echo', { text: 'through the proxy', token: SECRET });
    await client.listTools();
  } finally {
    await client.close();
    await proxy.settled();
    await proxy.close();
    await mock.close();
  }
  const files = await readdir(out);
  expect(files).toHaveLength(1);
  const file = join(out, files[0]!);
  return {
    session: (await readFixtureFile(file)) as ToolSession,
    text: await readFile(file, 'utf8'),
    echo,
    mock,
    proxy,
  };
}

/** `wirecheck record tools --http URL --out DIR`, stopped as by SIGTERM after 300 ms. */
async function recordForAWhile(url: string, out: string) {
  const stop = new AbortController();
  const run = cli(['record', 'tools', '--http', url, '--out', out], { shutdown: stop.signal });
  await new Promise((r) => setTimeout(r, 300));
  stop.abort();
  return run;
}

const methodOf = (text: string) => (JSON.parse(text) as { method?: string }).method;

describe('wirecheck record tools --http (Streamable HTTP)', () => {
  test.each(['sse', 'json'] as const)(
    'records a session with %s answers: every message in order, the DELETE ends it',
    async (httpAnswer) => {
      const { session, text, echo, mock } = await record({ httpAnswer }, join(dir, httpAnswer));
      expect(JSON.stringify(echo)).toContain('through the proxy');
      expect(validateFixture(session).ok).toBe(true);
      expect(session).toMatchObject({
        kind: 'tool-session',
        transport: 'http',
        server: mock.url,
        source: 'wirecheck record tools --http',
      });
      expect(session.stream).toBeUndefined();
      expect(
        session.messages.map(
          (m) => `${m.direction} ${methodOf(m.text) ?? (JSON.parse(m.text) as { id: unknown }).id}`,
        ),
      ).toEqual([
        'client->server initialize',
        'server->client 1',
        'client->server notifications/initialized',
        'client->server tools/call',
        'server->client 2',
        'client->server tools/list',
        'server->client 3',
      ]);
      expect(session.messages[2]!.post?.status).toBe(202);
      expect(session.messages[3]!.post?.status).toBe(200);
      // The credential of the request is scrubbed from what the client sent and what came back.
      expect(text).not.toContain(SECRET);
      expect(session.messages[3]!.text).toContain('[redacted]');
    },
    20_000,
  );

  test('round trip: the recorded session replays through the http mock and the SSE mock with the same results', async () => {
    const { session, echo } = await record({}, join(dir, 'round-trip'));
    const overHttp = await startStreamableHttpMockToolServer({}, { replay: session, speed: 0 });
    const overSse = await startMockToolServer({}, { replay: session, speed: 0 });
    const clients = [
      new ToolClient(new StreamableHttpClientTransport(overHttp.url)),
      new ToolClient(new SseClientTransport(overSse.url)),
    ];
    try {
      for (const c of clients) {
        await c.connect();
        // The recorded arguments carried the (scrubbed) secret; the replay answers what was recorded.
        const replayed = await c.callTool('echo', { text: 'through the proxy', token: SECRET });
        expect(JSON.stringify(replayed)).toContain('through the proxy');
        expect(JSON.stringify(replayed)).not.toContain(SECRET);
        expect(Object.keys(replayed)).toEqual(Object.keys(echo as object));
      }
    } finally {
      for (const c of clients) await c.close();
      await overHttp.close();
      await overSse.close();
    }
  }, 20_000);

  test('--http through the CLI prints the proxy endpoint first and exits 0 on SIGTERM; two targets are a usage error', async () => {
    const mock = await startStreamableHttpMockToolServer();
    const done = await recordForAWhile(mock.url, join(dir, 'cli'));
    await mock.close();
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\n$/);
    const both = await cli([
      'record',
      'tools',
      '--sse',
      'http://127.0.0.1:1/sse',
      '--http',
      'http://127.0.0.1:1/mcp',
      '--out',
      dir,
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --stdio CMD, --sse URL and --http URL/);
  });
});

describe('wirecheck record tools --http: a key written into the upstream URL', () => {
  const KEY = 'sk-live-url-0123456789';

  test('is scrubbed from every message, as a presented one is, and the server field shows it redacted', async () => {
    const mock = await startStreamableHttpMockToolServer();
    const out = join(dir, 'url-key');
    const proxy = await startStreamableHttpRecordingProxy({
      upstream: `${mock.url}?api_key=${KEY}`,
      outDir: out,
    });
    // The client presents nothing: the key rides in the URL the proxy sends every request to.
    const client = new ToolClient(new StreamableHttpClientTransport(proxy.url));
    try {
      await client.connect();
      const echo = await client.callTool('echo', { text: `the key is ${KEY}` });
      expect(JSON.stringify(echo)).toContain(KEY);
    } finally {
      await client.close();
      await proxy.settled();
      await proxy.close();
      await mock.close();
    }
    const [file] = await readdir(out);
    const text = await readFile(join(out, file!), 'utf8');
    expect(text).not.toContain(KEY);
    const session = (await readFixtureFile(join(out, file!))) as ToolSession;
    expect(session.server).toBe(`${mock.url}?api_key=[redacted]`);
    expect(
      session.messages.filter((m) => m.text.includes('the key is [redacted')).map((m) => m.direction),
    ).toEqual(['client->server', 'server->client']);
    expect(validateFixture(session).ok).toBe(true);
  }, 20_000);

  test('the CLI says what it records without the key', async () => {
    const mock = await startStreamableHttpMockToolServer();
    const done = await recordForAWhile(`${mock.url}?api_key=${KEY}`, join(dir, 'cli-key'));
    await mock.close();
    expect(done.code).toBe(0);
    expect(done.stderr).toContain(`recording ${mock.url}?api_key=[redacted] into`);
    expect(done.stderr).not.toContain(KEY);
  });
});

// A hostile server's JSON answer nested deeper than JSON.stringify can walk: the recorder must
// neither crash (it split batches by writing their members again) nor lose the answer.
test('an answer nested 100,000 levels deep is relayed and recorded whole, and the proxy goes on', async () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const initialized = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'deep', version: '1' } },
  });
  const upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const first = body.includes('"initialize"');
      res
        .writeHead(200, { 'content-type': 'application/json', ...(first ? { 'mcp-session-id': 's1' } : {}) })
        .end(first ? initialized : deep);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const out = join(dir, 'deep-answer');
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  const proxy = await startStreamableHttpRecordingProxy({ upstream: url, outDir: out });
  const post = (method: string, id: number) =>
    fetch(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(id === 0 ? {} : { 'mcp-session-id': 's1' }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: {} }),
      signal: AbortSignal.timeout(10_000),
    });
  try {
    expect(await (await post('initialize', 0)).text()).toBe(initialized);
    for (let id = 1; id <= 2; id++) expect(await (await post('ping', id)).text()).toBe(deep);
  } finally {
    await proxy.settled();
    await proxy.close();
    await new Promise((resolve) => upstream.close(resolve));
  }
  const files = await readdir(out);
  const session = (await readFixtureFile(join(out, files[0]!))) as ToolSession;
  expect(session.messages.filter((m) => m.direction === 'server->client').map((m) => m.text)).toEqual([
    initialized,
    deep,
    deep,
  ]);
}, 30_000);
