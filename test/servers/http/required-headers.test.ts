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
