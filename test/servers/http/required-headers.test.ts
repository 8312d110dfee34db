import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { serveToolsOptionsOf } from '../../../src/cli/serve-tools.js';
import { ToolClient } from '../../../src/clients/tools/index.js';
import { UsageError } from '../../../src/harness/errors.js';
import { startMockToolServer, startStreamableHttpMockToolServer } from '../../../src/mocks/tools/index.js';
import { requiredHeaderRefusal } from '../../../src/servers/http/required-headers.js';
import { startToolServer } from '../../../src/servers/tools/start.js';
import { startStreamableToolServer } from '../../../src/servers/tools/streamable-app.js';
import { SseClientTransport, StreamableHttpClientTransport } from '../../../src/transports/index.js';

const TOKEN = 'Bearer s3cret-token-value';
const REQUIRED = { Authorization: TOKEN };

describe('requiredHeaderRefusal (--require-header)', () => {
  test('a request carrying every required header with its exact value passes', () => {
    expect(requiredHeaderRefusal(REQUIRED, { authorization: TOKEN })).toBeUndefined();
    expect(requiredHeaderRefusal(undefined, {})).toBeUndefined();
    expect(
      requiredHeaderRefusal(
        { Authorization: TOKEN, 'X-Tenant': 'acme' },
        { authorization: TOKEN, 'x-tenant': 'acme' },
      ),
    ).toBeUndefined();
  });

  test('missing or wrong: 401 naming the header, a Bearer challenge, and neither value in the message', () => {
    const missing = requiredHeaderRefusal(REQUIRED, {});
    expect(missing).toEqual({
      status: 401,
      message: "Unauthorized: this server requires the Authorization header; the request's was missing",
      headers: { 'www-authenticate': 'Bearer' },
    });
    const wrong = requiredHeaderRefusal(REQUIRED, { authorization: 'Bearer guessed-value-0000' });
    expect(wrong?.message).toMatch(/was not the value required$/);
    expect(JSON.stringify(wrong)).not.toContain('s3cret');
    expect(JSON.stringify(wrong)).not.toContain('guessed');
    // A prefix or a longer value is not the value.
    expect(requiredHeaderRefusal(REQUIRED, { authorization: TOKEN.slice(0, -1) })?.status).toBe(401);
    expect(requiredHeaderRefusal(REQUIRED, { authorization: `${TOKEN}x` })?.status).toBe(401);
    // Another header has no challenge.
    expect(requiredHeaderRefusal({ 'X-Tenant': 'acme' }, {})?.headers).toEqual({});
  });
});

/** Each HTTP server of wirecheck that takes requireHeaders, started on port 0. */
const servers = [
  {
    name: 'reference SSE server',
    start: () => startToolServer({ port: 0, requireHeaders: REQUIRED }),
    transport: (url: string, headers?: Record<string, string>) =>
      new SseClientTransport(new URL(url), headers === undefined ? {} : { headers }),
  },
  {
    name: 'reference Streamable HTTP server',
    start: () => startStreamableToolServer({ port: 0, requireHeaders: REQUIRED }),
    transport: (url: string, headers?: Record<string, string>) =>
      new StreamableHttpClientTransport(new URL(url), headers === undefined ? {} : { headers }),
  },
  {
    name: 'SSE mock tool server',
    start: () => startMockToolServer({}, { requireHeaders: REQUIRED }),
    transport: (url: string, headers?: Record<string, string>) =>
      new SseClientTransport(new URL(url), headers === undefined ? {} : { headers }),
  },
  {
    name: 'Streamable HTTP mock tool server',
    start: () => startStreamableHttpMockToolServer({}, { requireHeaders: REQUIRED }),
    transport: (url: string, headers?: Record<string, string>) =>
      new StreamableHttpClientTransport(new URL(url), headers === undefined ? {} : { headers }),
  },
] as const;

describe.each(servers)('$name with requireHeaders', (server) => {
  test('a request without the header is answered 401 with a Bearer challenge; a client with it lists the tools', async () => {
    const running = await server.start();
    try {
      const bare = await fetch(running.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toBe('Bearer');
      expect(await bare.text()).not.toContain('s3cret');
      const get = await fetch(running.url, {
        headers: { accept: 'text/event-stream', authorization: 'Bearer no' },
      });
      expect(get.status).toBe(401);
      await get.body?.cancel();

      const refused = new ToolClient(server.transport(running.url));
      await expect(refused.connect({ timeoutMs: 5000 })).rejects.toThrow(/401/);
      await refused.close();

      const client = new ToolClient(server.transport(running.url, REQUIRED));
      await client.connect({ timeoutMs: 5000 });
      const listed = await client.listTools({ timeoutMs: 5000 });
      expect(listed.tools.length).toBeGreaterThan(0);
      await client.close();
      if ('journal' in running) expect(JSON.stringify(running.journal())).not.toContain('s3cret');
    } finally {
      await running.close();
    }
  }, 30_000);
});

/** One request by node:http (fetch does not let a test set Host): its status. */
function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

const mocks = [
  {
    name: 'SSE mock tool server',
    start: () => startMockToolServer({}, { requireHeaders: REQUIRED }),
    streamPath: '/sse',
    postPath: '/messages?sessionId=s-1',
    sessionHeaders: {},
    // The SSE transport has no DELETE: a path of no route.
    deleteIsRoute: false,
  },
  {
    name: 'Streamable HTTP mock tool server',
    start: () => startStreamableHttpMockToolServer({}, { requireHeaders: REQUIRED }),
    streamPath: '/mcp',
    postPath: '/mcp',
    sessionHeaders: { 'mcp-session-id': 's-1' },
    deleteIsRoute: true,
  },
] as const;

describe.each(mocks)('$name journals the requests it refuses', (mock) => {
  test('a GET, a POST and a DELETE refused with 401, and a Host refused with 403, are journaled with their status, under the session named; a path of no route is not', async () => {
    const running = await mock.start();
    try {
      const { host } = new URL(running.url);
      const json = {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      expect(await send(running.url, 'GET', mock.streamPath, { host, accept: 'text/event-stream' })).toBe(
        401,
      );
      expect(
        await send(
          running.url,
          'POST',
          mock.postPath,
          { ...json, ...mock.sessionHeaders, authorization: 'Bearer guessed-value-0000' },
          INITIALIZE,
        ),
      ).toBe(401);
      expect(await send(running.url, 'DELETE', mock.streamPath, { host, ...mock.sessionHeaders })).toBe(401);
      expect(await send(running.url, 'GET', '/no-such-route', { host })).toBe(401);
      expect(
        await send(
          running.url,
          'POST',
          mock.postPath,
          { ...json, host: 'evil.example', ...mock.sessionHeaders, ...REQUIRED },
          INITIALIZE,
        ),
      ).toBe(403);

      const entries = running.journal().map((e) => ({
        kind: e.kind,
        session: e.session,
        status: e.http?.status,
        method: e.http?.method,
        rpc: (e.value as { method?: string } | undefined)?.method,
      }));
      expect(entries).toEqual([
        { kind: 'stream-open', session: '(none)', status: 401, method: 'GET', rpc: undefined },
        { kind: 'message', session: 's-1', status: 401, method: 'POST', rpc: 'initialize' },
        ...(mock.deleteIsRoute
          ? [{ kind: 'closed', session: 's-1', status: 401, method: 'DELETE', rpc: undefined }]
          : []),
        { kind: 'message', session: 's-1', status: 403, method: 'POST', rpc: 'initialize' },
      ]);
      // The token a refused client sent, and the one required, are not written down.
      const written = JSON.stringify(running.journal());
      expect(written).not.toContain('guessed-value');
      expect(written).not.toContain('s3cret');
      expect(running.journal()[1]?.http?.headers?.authorization).toBe('Bearer [redacted]');
    } finally {
      await running.close();
    }
  });
});

describe('serve tools --require-header', () => {
  test('taken for sse and http, a variable read from the environment; with stdio or malformed, a usage error naming the flag', () => {
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the user's ${VAR}, expanded by wirecheck
      serveToolsOptionsOf({ requireHeader: ['Authorization: Bearer ${MCP_TOKEN}'] }, { MCP_TOKEN: 'abc' }),
    ).toMatchObject({ transport: 'sse', requireHeaders: { Authorization: 'Bearer abc' } });
    expect(serveToolsOptionsOf({}, {})).not.toHaveProperty('requireHeaders');
    expect(() =>
      serveToolsOptionsOf({ transport: 'stdio', requireHeader: ['Authorization: Bearer x'] }, {}),
    ).toThrow(UsageError);
    expect(() => serveToolsOptionsOf({ requireHeader: ['Authorization'] }, {})).toThrow(
      /--require-header takes/,
    );
  });
});
