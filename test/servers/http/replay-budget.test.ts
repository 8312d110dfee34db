import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import type { JsonRpcResponse } from '../../../src/protocol/jsonrpc/index.js';
import {
  createStreamableEndpoint,
  type StreamableEndpoint,
  type StreamableSessionApp,
} from '../../../src/servers/http/streamable-endpoint.js';

// The endpoint's sessions share one replay budget: 10,000 sessions of 1 MiB each would be 10 GiB.

const KiB = 1024;
let server: Server | undefined;
let endpoint: StreamableEndpoint | undefined;

afterEach(async () => {
  endpoint?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())));
  server = undefined;
  endpoint = undefined;
});

/** Answers initialize at once (2025-11-25: priming events) and every other request when `release` is called. */
function gatedApp(reply: string, held: (() => void)[]): StreamableSessionApp {
  return {
    handle(value) {
      const msg = value as { id?: number; method?: string };
      if (msg.method === 'initialize') {
        return {
          jsonrpc: '2.0',
          id: msg.id ?? 0,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 't', version: '0' },
          },
        } as JsonRpcResponse;
      }
      return new Promise<JsonRpcResponse>((resolve) => {
        held.push(() =>
          resolve({ jsonrpc: '2.0', id: msg.id ?? 0, result: { text: reply } } as JsonRpcResponse),
        );
      });
    },
    close() {},
  };
}

async function listen(budget: number, reply: string, held: (() => void)[]): Promise<string> {
  endpoint = createStreamableEndpoint({
    openSession: () => gatedApp(reply, held),
    protocolVersions: ['2025-11-25'],
    replayBudgetBytes: budget,
    keepAliveMs: 0,
  });
  const e = endpoint;
  server = createServer((req, res) => e.handle(req, res));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
  cutAfterPriming = false,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      agent: false,
      headers: {
        accept: 'application/json, text/event-stream',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        if (cutAfterPriming && /^id: \S+\ndata: \n\n/.test(text)) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('the replay budget of a Streamable HTTP endpoint', () => {
  test('many sessions with cut streams keep at most the budget; the oldest events go, the newest resume', async () => {
    const held: (() => void)[] = [];
    const reply = 'r'.repeat(2 * KiB);
    const url = await listen(16 * KiB, reply, held);
    const cuts: { session: string; primed: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const init = await exchange(
        url,
        'POST',
        {},
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '0' },
          },
        },
      );
      const session = String(init.headers['mcp-session-id']);
      const cut = await exchange(
        url,
        'POST',
        { 'mcp-session-id': session },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} },
        true,
      );
      cuts.push({ session, primed: /^id: (\S+)/.exec(cut.text)![1]! });
    }
    // Every reply is written after its client left: each is kept for Last-Event-ID, within the budget.
    for (const release of held.splice(0)) {
      release();
      await new Promise((r) => setImmediate(r));
      expect(endpoint!.replayBytes()).toBeLessThanOrEqual(16 * KiB);
    }
    await new Promise((r) => setTimeout(r, 50));
    const kept = cuts.filter((c) => endpoint!.replayBytes(c.session) > 0).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(30);
    expect(endpoint!.replayBytes()).toBeLessThanOrEqual(16 * KiB);

    const newest = cuts[cuts.length - 1]!;
    const resumed = await exchange(url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': newest.session,
      'last-event-id': newest.primed,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.text).toContain(reply);

    const oldest = cuts[0]!;
    const refused = await exchange(url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': oldest.session,
      'last-event-id': oldest.primed,
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('no longer kept');
  });
});
