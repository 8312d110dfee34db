import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_JOURNAL_LIMITS, MAX_BODY_DEPTH } from '../../../src/mocks/limits.js';
import {
  createMockMessagesApp,
  type MockMessagesOptions,
  type MockMessagesService,
  scriptScenario,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import type { Message } from '../../../src/protocol/messages/index.js';
import { messagesBody, SAMPLE } from './helpers.js';

const SECRET = 'sk-ant-api03-SECRET-0123456789abcdefghij';
const dirs: string[] = [];
const services: MockMessagesService[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await Promise.all(services.splice(0).map((s) => s.close()));
});

function appWith(opts: MockMessagesOptions = {}) {
  return createMockMessagesApp({ scenario: () => ({ kind: 'message', message: SAMPLE }), ...opts });
}

describe('the journal keeps no credential (HTTP journal)', () => {
  test('x-api-key, Authorization, Cookie and custom credential headers, query keys and the key in the body are redacted; what they were is kept', async () => {
    const { app, state } = appWith({ apiKey: SECRET });
    const res = await app.inject({
      method: 'POST',
      url: `/v1/messages?key=${SECRET}&beta=true`,
      headers: {
        'x-api-key': SECRET,
        authorization: `Bearer ${SECRET}`,
        cookie: 'session=COOKIE-VALUE-123456',
        'x-goog-api-key': 'OTHER-SECRET-VALUE-1234',
        'x-echo': `copy of ${SECRET}`,
        'content-type': 'application/json',
      },
      payload: messagesBody(`my key is ${SECRET}`),
    });
    expect(res.statusCode).toBe(200);
    const [entry] = state.journal.entries();
    expect(entry!.headers).toMatchObject({
      'x-api-key': '[redacted]',
      authorization: 'Bearer [redacted]',
      cookie: '[redacted]',
      'x-goog-api-key': '[redacted]',
      'x-echo': 'copy of [redacted]',
      'content-type': 'application/json',
    });
    expect(entry!.url).toBe('/v1/messages?key=[redacted]&beta=true');
    expect(entry!.auth).toBe('x-api-key');
    expect(entry!.configuredKeyIn).toEqual(['x-api-key', 'bearer']);
    expect((entry!.body as { messages: { content: string }[] }).messages[0]!.content).toBe(
      'my key is [redacted]',
    );
    const served = (await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).body;
    expect(served).not.toMatch(/SECRET|COOKIE-VALUE/);
    expect(JSON.parse(served)[0].configuredKeyIn).toEqual(['x-api-key', 'bearer']);
    await app.close();
  });

  test('a wrong key is journaled as not the configured one, and refused', async () => {
    const { app, state } = appWith({ apiKey: SECRET });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': 'wrong-key-0123456789', 'content-type': 'application/json' },
      payload: messagesBody('hi'),
    });
    expect(res.statusCode).toBe(401);
    expect(state.journal.entries()[0]).toMatchObject({ auth: 'x-api-key', configuredKeyIn: [] });
    await app.close();
  });
});

describe('requests of other sites (DNS rebinding) and the control routes', () => {
  test('a Host that is not a loopback name or the configured host is 403 permission_error; a refused request to the service is journaled with its 403 (credentials redacted), one to the control routes is not', async () => {
    const { app, state } = appWith();
    const res = await app.inject({
      method: 'GET',
      url: '/__wirecheck/journal',
      headers: { host: 'rebind.attacker.example:8080' },
    });
    expect(res.statusCode).toBe(403);
    const body = JSON.parse(res.body);
    expect(body.error.type).toBe('permission_error');
    expect(body.error.message).toContain('Host "rebind.attacker.example:8080" is not allowed');
    const post = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { host: 'rebind.attacker.example', 'x-api-key': 'k', 'content-type': 'application/json' },
      payload: messagesBody('hi'),
    });
    expect(post.statusCode).toBe(403);
    expect(state.journal.size).toBe(1);
    const [entry] = state.journal.entries();
    expect(entry).toMatchObject({ method: 'POST', url: '/v1/messages', status: 403, outcome: 'completed' });
    expect(entry?.headers?.['x-api-key']).toBe('[redacted]');
    expect(entry?.body).toBeUndefined();
    const allowed = createMockMessagesApp({ allowedHosts: ['mock.internal'] }).app;
    const ok = await allowed.inject({
      method: 'GET',
      url: '/__wirecheck/health',
      headers: { host: 'mock.internal:80' },
    });
    expect(ok.statusCode).toBe(200);
    await Promise.all([app.close(), allowed.close()]);
  });

  test('a control route asked by a page of another site is 403; /v1/messages takes any Origin (browser clients)', async () => {
    const { app } = appWith();
    for (const [method, url] of [
      ['GET', '/__wirecheck/journal'],
      ['DELETE', '/__wirecheck/journal'],
      ['PUT', '/__wirecheck/scenario'],
    ] as const) {
      const res = await app.inject({
        method,
        url,
        headers: { origin: 'https://attacker.example' },
        payload: '{}',
      });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(JSON.parse(res.body).error.message).toContain(
        'Origin "https://attacker.example" is not allowed',
      );
    }
    const local = await app.inject({
      method: 'GET',
      url: '/__wirecheck/journal',
      headers: { origin: 'http://localhost:3000' },
    });
    expect(local.statusCode).toBe(200);
    const browser = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { origin: 'https://app.example', 'x-api-key': 'k', 'content-type': 'application/json' },
      payload: messagesBody('hi'),
    });
    expect(browser.statusCode).toBe(200);
    await app.close();
  });

  test('fixtures load only from the directories given at start; a path outside, or a link out of them, is 403; errors quote no file bytes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wc-fixture-dirs-'));
    dirs.push(root);
    const allowed = join(root, 'allowed');
    const outside = join(root, 'outside');
    mkdirSync(join(allowed, 'bad'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(
      join(allowed, 'hello.json'),
      JSON.stringify({
        reply: { kind: 'message', message: { content: [{ type: 'text', text: 'from fixture' }] } },
      }),
    );
    writeFileSync(join(allowed, 'bad', 'secret.json'), 'root:x:0:0:SECRET-FILE-BYTES');
    writeFileSync(join(outside, 'x.json'), '{}');
    symlinkSync(outside, join(allowed, 'link-out'));
    const { app } = appWith({ fixtureDirs: [allowed] });
    const put = (fixtures: string) =>
      app.inject({ method: 'PUT', url: '/__wirecheck/scenario', payload: { fixtures } });
    expect((await put(allowed)).statusCode).toBe(200);
    for (const dir of [outside, '/etc', join(allowed, '..', 'outside'), join(allowed, 'link-out')]) {
      const res = await put(dir);
      expect(res.statusCode, dir).toBe(403);
      expect(res.body).not.toContain(outside);
    }
    const bad = await put(join(allowed, 'bad'));
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe('fixture secret.json: not valid JSON');
    expect(bad.body).not.toContain('SECRET-FILE-BYTES');
    expect(bad.body).not.toContain('root:x');
    await app.close();
  });
});

describe('floods of the journal and of deep bodies', () => {
  test('the default limits are named: 10,000 entries, 64 MiB, 1 MiB a body; depth 1,000', () => {
    expect(DEFAULT_JOURNAL_LIMITS).toEqual({
      entries: 10_000,
      totalBytes: 64 * 1024 * 1024,
      bodyBytes: 1024 * 1024,
    });
    expect(MAX_BODY_DEPTH).toBe(1_000);
  });

  test('a body over the per-body limit is kept cut, with its size; the total stays under its limit; the journal route answers', async () => {
    const limits = { totalBytes: 8 * 1024 * 1024, bodyBytes: 256 * 1024 };
    const { app, state } = appWith({ journalLimits: limits });
    const big = JSON.stringify(messagesBody('x'.repeat(1024 * 1024)));
    for (let i = 0; i < 40; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        payload: big,
      });
      expect(res.statusCode).toBe(200);
    }
    const entries = state.journal.entries();
    expect(entries.length).toBeLessThan(40);
    expect(state.journal.dropped).toBe(40 - entries.length);
    const last = entries.at(-1)!;
    expect(last.bodyTruncated).toEqual({ bytes: Buffer.byteLength(big) });
    expect(typeof last.body).toBe('string');
    expect(Buffer.byteLength(last.body as string)).toBeLessThanOrEqual(limits.bodyBytes);
    expect(entries.reduce((n, e) => n + Buffer.byteLength(String(e.body)), 0)).toBeLessThanOrEqual(
      limits.totalBytes,
    );
    const res = await app.inject({ method: 'GET', url: '/__wirecheck/journal' });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toHaveLength(entries.length);
    await app.close();
  });

  test('six 30 MB bodies nested millions of levels deep are refused at the scan (400), never parsed, and kept cut', async () => {
    const { app, state } = appWith();
    const half = 15 * 1024 * 1024;
    const deep = `${'['.repeat(half)}${']'.repeat(half)}`;
    for (let i = 0; i < 6; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        payload: deep,
      });
      expect(res.statusCode).toBe(400);
      expect(JSON.parse(res.body).error.message).toMatch(/nested more than 1000 levels deep/);
    }
    const entries = state.journal.entries();
    expect(entries).toHaveLength(6);
    for (const e of entries) {
      expect(e.bodyTruncated).toEqual({ bytes: 2 * half });
      expect((e.body as string).length).toBeLessThanOrEqual(DEFAULT_JOURNAL_LIMITS.bodyBytes);
    }
    expect((await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).statusCode).toBe(200);
    await app.close();
  }, 60_000);
});

describe('a client that stops reading a mock stream', () => {
  test('holds the mock to what the socket buffers: writes wait for it (backpressure), and the stream completes when it reads again', async () => {
    const text = 'w'.repeat(16 * 1024 * 1024);
    const splits = Array.from({ length: 200_000 }, (_, i) => (i + 1) * 80);
    const message: Message = { ...SAMPLE, content: [{ type: 'text', text }], stop_reason: 'end_turn' };
    const mock = await startMockMessagesService({
      scenario: scriptScenario([{ kind: 'message', message, splits: [splits] }]),
    });
    services.push(mock);
    const { port } = new URL(mock.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    socket.on('error', () => {});
    const body = JSON.stringify(messagesBody('go', { stream: true }));
    let stalled = true;
    socket.on('data', () => {
      if (stalled) socket.pause();
    });
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: k\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const entry = await mock.journal.waitFor((e) => e.status === 200, 5_000);
    // Let the mock write as far as it can into a client that reads nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    const written = entry.bytesWritten;
    expect(written).toBeGreaterThan(0);
    // The whole stream is ~40 MB; the mock stops once the socket and its buffer are full.
    expect(written).toBeLessThan(24 * 1024 * 1024);
    expect(entry.outcome).toBe('pending');
    stalled = false;
    socket.resume();
    const done = await mock.journal.waitFor((e) => e.outcome === 'completed', 20_000);
    expect(done.bytesWritten).toBeGreaterThan(written);
    socket.destroy();
  }, 40_000);
});

describe('a client that opens many requests declaring large bodies and trickles them', () => {
  // Each body is capped by bodyLimit, but a hundred such requests at once would hold gigabytes.
  test('past bodiesInFlightLimit a request is refused at once with 529; one that ends gives its share back', async () => {
    const bodyLimit = 1024 * 1024;
    const mock = await startMockMessagesService({ bodyLimit, bodiesInFlightLimit: 4 * bodyLimit });
    services.push(mock);
    const { port } = new URL(mock.url);
    const head = `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: k\r\ncontent-type: application/json\r\ncontent-length: ${bodyLimit}\r\n\r\n`;
    const trickling = Array.from({ length: 4 }, () => {
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      socket.on('error', () => {});
      socket.write(`${head}{"model":`);
      return socket;
    });
    try {
      await mock.journal.waitFor(() => mock.journal.entries().length === 4, 5_000);
      const post = () =>
        fetch(`${mock.url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
          body: JSON.stringify(messagesBody('x'.repeat(bodyLimit / 2))),
          signal: AbortSignal.timeout(5_000),
        });
      const refused = await post();
      expect(refused.status).toBe(529);
      expect(((await refused.json()) as { error: { type: string; message: string } }).error).toMatchObject({
        type: 'overloaded_error',
        message: expect.stringContaining('bodiesInFlightLimit'),
      });
      trickling[0]!.destroy();
      await new Promise((r) => setTimeout(r, 200));
      expect((await post()).status).toBe(200);
    } finally {
      for (const s of trickling) s.destroy();
    }
  });

  test('chunked bodies are charged what they come to: six at once are all served', async () => {
    const bodyLimit = 1024 * 1024;
    const mock = await startMockMessagesService({
      bodyLimit,
      bodiesInFlightLimit: 4 * bodyLimit,
      faults: { headersDelayMs: 500 },
    });
    services.push(mock);
    // Six small bodies sent chunked (no Content-Length), their answers held 500 ms: all served.
    const chunked = () =>
      fetch(`${mock.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: new Blob([JSON.stringify(messagesBody('hi'))]).stream(),
        duplex: 'half',
        signal: AbortSignal.timeout(10_000),
      } as RequestInit);
    const statuses = await Promise.all(Array.from({ length: 6 }, async () => (await chunked()).status));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(mock.journal.entries().every((e) => e.headers['transfer-encoding'] === 'chunked')).toBe(true);
  });
});
