import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { startRecordingProxy } from '../../src/recording/index.js';
import type { RelayServerOptions } from '../../src/recording/relay-server.js';
import {
  type StreamableHttpRecordingProxyOptions,
  startStreamableHttpRecordingProxy,
} from '../../src/recording/tools/streamable-http.js';
import { eventually, type RawPost, rawPost, watchRequests, within } from '../servers/http/raw-post.js';

// The recorders hold a client's stalled request no longer than the request timeout (408), answer
// a body declared over their limit 413 before reading it, and hold bodies in flight to 4 x the
// limit: `record messages` answers past it as the real API does when busy (529 overloaded_error),
// the tool recorders 503.

const cleanup: (() => unknown)[] = [];
const sockets: RawPost[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.socket.destroy();
  for (const c of cleanup.splice(0).reverse()) await c();
});

function held(p: RawPost): RawPost {
  sockets.push(p);
  return p;
}

const MESSAGES = '/v1/messages';
const HEADERS = ['content-type: application/json', 'x-api-key: k', 'anthropic-version: 2023-06-01'];

/** An upstream answering every request 200 with a small JSON body. */
async function upstream(): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function proxy(options: { bodyLimit?: number; requestTimeoutMs?: number }) {
  const p = await startRecordingProxy({ upstream: await upstream(), ...options });
  cleanup.push(() => p.close());
  return p;
}

describe('record messages', () => {
  test('a POST whose body stalls is answered 408 and closed within the request timeout', async () => {
    const p = await proxy({ requestTimeoutMs: 300 });
    const stalled = held(rawPost(p.url, MESSAGES, [...HEADERS, 'content-length: 1000000'], '{"a'));
    const outcome = await within(stalled.closed, 3_000, 'the stalled POST');
    expect(outcome.status).toBe(408);
  });

  test('a body declared over the limit is answered 413 at once, none of it sent', async () => {
    const p = await proxy({ bodyLimit: 1000 });
    const over = held(rawPost(p.url, MESSAGES, [...HEADERS, 'content-length: 2000']));
    const outcome = await within(over.answered, 2_000, 'the POST declared over the limit');
    expect(outcome.status).toBe(413);
    expect(outcome.text).toMatch(/"type":"request_too_large"/);
  });

  test('bodies held past the budget are refused 529 overloaded_error before they are read; later requests pass', async () => {
    const p = await proxy({ bodyLimit: 1000 });
    const arrivals = watchRequests(p.url);
    for (let i = 0; i < 4; i++) held(rawPost(p.url, MESSAGES, [...HEADERS, 'content-length: 1000'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(p.url, MESSAGES, [...HEADERS, 'content-length: 1000'], '{"a')).answered,
      3_000,
      'the POST past the budget',
    );
    expect(refused.status).toBe(529);
    expect(refused.text).toMatch(/connection: close/i);
    expect(refused.text).toMatch(
      /"type":"overloaded_error","message":"wirecheck record: .*would pass its limit of 4000/,
    );
    for (const s of sockets.splice(0)) s.socket.destroy();
    // The proxy frees the budget as it sees the closes, some time after they were sent.
    await eventually(async () => {
      const after = await fetch(`${p.url}${MESSAGES}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(after.status).toBe(200);
      expect(await after.text()).toBe('{"ok":true}');
    });
  });

  test('a chunked body is charged as it arrives: past the budget it is refused 529', async () => {
    const p = await proxy({ bodyLimit: 1000 });
    const arrivals = watchRequests(p.url);
    // 3500 bytes of 4000 held: a chunked body of 600 would pass the budget.
    for (let i = 0; i < 3; i++) held(rawPost(p.url, MESSAGES, [...HEADERS, 'content-length: 1000'], '{"a'));
    held(rawPost(p.url, MESSAGES, [...HEADERS, 'content-length: 500'], '{"a'));
    await arrivals.until(4);
    const chunk = `{"x":"${'y'.repeat(592)}"}`;
    const refused = await within(
      held(
        rawPost(
          p.url,
          MESSAGES,
          [...HEADERS, 'transfer-encoding: chunked'],
          `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
        ),
      ).answered,
      3_000,
      'the chunked POST past the budget',
    );
    expect(refused.status).toBe(529);
    expect(refused.text).toMatch(/chunked body/);
  });
});

describe('record tools (Streamable HTTP)', () => {
  async function recorder(options: Partial<StreamableHttpRecordingProxyOptions> & RelayServerOptions) {
    const all: StreamableHttpRecordingProxyOptions & RelayServerOptions = {
      upstream: `${await upstream()}/mcp`,
      ...options,
    };
    const r = await startStreamableHttpRecordingProxy(all);
    cleanup.push(() => r.close());
    return r;
  }

  test('a POST whose body stalls is answered 408 and closed within the request timeout', async () => {
    const r = await recorder({ requestTimeoutMs: 300 });
    const stalled = held(
      rawPost(r.url, '/mcp', ['content-type: application/json', 'content-length: 1000000'], '{"a'),
    );
    const outcome = await within(stalled.closed, 3_000, 'the stalled POST');
    expect(outcome.status).toBe(408);
  });

  test('a body declared over the limit is answered 413 at once; bodies past the budget 503', async () => {
    const r = await recorder({ bodyLimit: 1000 });
    const over = held(rawPost(r.url, '/mcp', ['content-type: application/json', 'content-length: 2000']));
    expect((await within(over.answered, 2_000, 'the POST declared over the limit')).status).toBe(413);
    const arrivals = watchRequests(r.url);
    for (let i = 0; i < 4; i++)
      held(rawPost(r.url, '/mcp', ['content-type: application/json', 'content-length: 1000'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(r.url, '/mcp', ['content-type: application/json', 'content-length: 1000'], '{"a'))
        .answered,
      3_000,
      'the POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/\{"error":"recording proxy busy: .*would pass its limit of 4000/);
  });
});
