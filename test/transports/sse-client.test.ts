import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { SseClientTransport, TransportClosedError, TransportError } from '../../src/transports/index.js';
import { type SseServer, type SseServerOptions, startSseServer } from '../clients/tools/sse-server.js';

const servers: { close(): Promise<void> }[] = [];
const transports: SseClientTransport[] = [];

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

async function server(options: SseServerOptions = {}): Promise<SseServer> {
  const s = await startSseServer(options);
  servers.push(s);
  return s;
}

function open(url: string, endpointTimeoutMs = 2000) {
  const t = new SseClientTransport(url, { endpointTimeoutMs });
  transports.push(t);
  const messages: unknown[] = [];
  const errors: TransportError[] = [];
  let closed = 0;
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e);
  t.onclose = () => closed++;
  return { t, messages, errors, closed: () => closed };
}

async function until(condition: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };

/** A node:http relay on another origin that forwards POSTs to `target` and records them. */
async function relay(target: string): Promise<{
  origin: string;
  hits: string[];
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}> {
  const hits: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const srv: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    authorizations.push(req.headers.authorization);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const forwarded = await fetch(`${target}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      res.writeHead(forwarded.status).end(await forwarded.text());
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    authorizations,
    close: () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

describe('SSE client transport (spec "Tool server, SSE transport")', () => {
  test('an endpoint given as a path is prefixed with the server origin, and the reply arrives as a message event', async () => {
    const s = await server({ endpoint: 'path' });
    const c = open(s.url);
    await c.t.start();
    expect(c.t.endpoint?.href).toBe(`${s.origin}/messages?sessionId=s1`);
    expect(c.t.sessionId).toBe('s1');
    await c.t.send(init);
    await until(() => c.messages.length === 1, 'the reply');
    expect(c.messages[0]).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
    expect(s.posts).toEqual([init]);
  });

  test('an absolute endpoint URL is used as is, even on another origin', async () => {
    const main = await server({ endpoint: (session) => `${other.origin}/messages?sessionId=${session}` });
    const other = await relay(main.origin);
    servers.push(other);
    const c = open(main.url);
    await c.t.start();
    expect(c.t.endpoint?.origin).toBe(other.origin);
    await c.t.send(init);
    await until(() => c.messages.length === 1, 'the reply');
    expect(other.hits).toEqual(['/messages?sessionId=s1']);
  });

  test("configured headers go to the stream's origin only, unless headersToOtherOrigin", async () => {
    const main = await server({ endpoint: (session) => `${other.origin}/messages?sessionId=${session}` });
    const other = await relay(main.origin);
    servers.push(other);
    const headers = { authorization: 'Bearer secret-token-123' };
    for (const headersToOtherOrigin of [false, true]) {
      const t = new SseClientTransport(main.url, { endpointTimeoutMs: 2000, headers, headersToOtherOrigin });
      transports.push(t);
      await t.start();
      await t.send(init);
    }
    expect(other.authorizations).toEqual([undefined, headers.authorization]);
  });

  test('a refused POST to another origin says the configured headers were not sent', async () => {
    const other = createServer((_req, res) => res.writeHead(401).end('no credentials'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    servers.push({ close: () => new Promise<void>((r) => other.close(() => r())) });
    const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const main = await server({ endpoint: (session) => `${otherOrigin}/messages?sessionId=${session}` });
    const t = new SseClientTransport(main.url, { headers: { authorization: 'Bearer secret-token-123' } });
    transports.push(t);
    t.onerror = () => {};
    await t.start();
    await expect(t.send(init)).rejects.toThrow(
      /401.*configured headers were not sent: .* is not the stream's origin/,
    );
  });

  test('an endpoint of a scheme other than http(s) fails start, naming it', async () => {
    const main = await server({ endpoint: () => 'ftp://127.0.0.1/messages?sessionId=s1' });
    const c = open(main.url);
    await expect(c.t.start()).rejects.toThrow(/endpoint.*ftp:.*not http: or https:/);
  });

  test.each([200, 202])('a POST answered %i counts as success', async (status) => {
    const s = await server({ postStatus: status });
    const c = open(s.url);
    await c.t.start();
    await expect(c.t.send(init)).resolves.toBeUndefined();
    await until(() => c.messages.length === 1, 'the reply');
    expect(c.errors).toEqual([]);
  });

  test('a POST answered with another status rejects with an http TransportError carrying status and body', async () => {
    const s = await server({ postStatus: 404 });
    const c = open(s.url);
    await c.t.start();
    const error = await c.t.send(init).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ kind: 'http', status: 404, fatal: false });
    expect((error as TransportError).input).toContain('status 404');
    expect(c.errors).toHaveLength(1);
    expect(c.closed()).toBe(0);
  });

  test('comment frames, events of other names and a non-JSON message frame are skipped; later messages still arrive', async () => {
    const s = await server({
      noiseBeforeReply: true,
      rawInsteadOf: {
        method: 'tools/list',
        text: 'event: message\ndata: not json\n\n: comment\n\nevent: message\ndata: {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n\n',
      },
    });
    const c = open(s.url);
    await c.t.start();
    await c.t.send(init);
    await c.t.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await until(() => c.messages.some((m) => (m as { id?: number }).id === 2), 'the tools/list reply');
    // The noise notifications are messages (the transport does not judge), the rest is skipped.
    expect(
      c.messages.map((m) => (m as { id?: number; method?: string }).id ?? (m as { method: string }).method),
    ).toEqual(['notifications/unheard-of', 'notifications/tools/list_changed', 1, 2]);
    expect(c.errors.map((e) => [e.kind, e.fatal])).toEqual([['parse', false]]);
    expect(c.errors[0]?.message).toContain('not json');
    expect(c.closed()).toBe(0);
  });

  test('the stream closed by the server mid-session ends the transport: onclose, and send rejects', async () => {
    const s = await server({ closeStreamOn: 'tools/list' });
    const c = open(s.url);
    await c.t.start();
    await c.t.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await until(() => c.closed() === 1, 'onclose');
    expect(c.errors.at(-1)).toMatchObject({ kind: 'connection', fatal: true });
    await expect(c.t.send(init)).rejects.toBeInstanceOf(TransportClosedError);
  });

  test('a stream without an endpoint event fails start within the bound, naming the missing event', async () => {
    const s = await server({ endpoint: 'none' });
    const c = open(s.url, 200);
    await expect(c.t.start()).rejects.toThrow(/no `endpoint` event within 200 ms/);
  });

  test('a GET not answered 200 fails start with the status', async () => {
    const s = await server();
    const c = open(`${s.origin}/nowhere`);
    await expect(c.t.start()).rejects.toMatchObject({ kind: 'http', status: 404 });
  });

  test('close() ends the GET stream on the server side', async () => {
    const s = await server();
    const c = open(s.url);
    await c.t.start();
    await c.t.close();
    expect(c.closed()).toBe(1);
    await expect(c.t.send(init)).rejects.toBeInstanceOf(TransportClosedError);
  });
});
