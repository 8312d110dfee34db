import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { HarnessBug } from '../../../src/harness/check.js';
import { UsageError } from '../../../src/harness/errors.js';
import { harnessBugOf } from '../../../src/harness/programmer-error.js';
import {
  RequestFailed,
  type ServiceClient,
  sendBuffered,
  sendStreamed,
} from '../../../src/suites/messages-service/http.js';

// wirecheck's own mistakes (a callback of its that throws, a request fetch refuses to send)
// are not the service's failures, and the service's broken bodies are not wirecheck's.

const servers: Server[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

interface Service {
  readonly client: ServiceClient;
  readonly requests: IncomingMessage[];
}

/** A service on 127.0.0.1:0 answering every request with `answer`, keeping the requests it got. */
async function service(
  answer: (res: ServerResponse) => void,
  client: Partial<ServiceClient> = {},
): Promise<Service> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    requests,
    client: {
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      requestTimeoutMs: 10_000,
      signal: new AbortController().signal,
      ...client,
    },
  };
}

const SSE = { 'content-type': 'text/event-stream' };
const BODY = JSON.stringify({ model: 'm', max_tokens: 8, messages: [], stream: true });
const SECRET = 'sk-secret-value-0123456789';

describe("messages-service http: an error of wirecheck's own callbacks is not the service's read error", () => {
  test('a TypeError thrown by abortAfter leaves sendStreamed as itself (a harness bug), and the body is cancelled', async () => {
    let closed!: () => void;
    const bodyClosed = new Promise<void>((r) => {
      closed = r;
    });
    const { client } = await service((res) => {
      res.writeHead(200, SSE);
      const timer = setInterval(() => res.write('event: ping\ndata: {"type":"ping"}\n\n'), 10);
      res.on('close', () => {
        clearInterval(timer);
        closed();
      });
    });
    const error = await sendStreamed(client, BODY, {
      abortAfter: (frame) => (undefined as unknown as { x: string[] }).x.includes(frame.data),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^Cannot read properties of undefined/);
    expect(harnessBugOf(error)).toBeInstanceOf(HarnessBug);
    // The stream never ends by itself: only the cancel closes it (bounded by the test's timeout).
    await bodyClosed;
  });

  test('a stream the service resets is still a read error of the reply, not thrown', async () => {
    const { client } = await service((res) => {
      res.writeHead(200, SSE);
      res.write('event: ping\ndata: {"type":"ping"}\n\n');
      setTimeout(() => res.destroy(), 50);
    });
    const reply = await sendStreamed(client, BODY, { abortAfter: () => false });
    expect(reply.readError).toMatch(/terminated/);
    expect(reply.frames).toHaveLength(1);
  });
});

describe('messages-service http: a header value fetch cannot send is refused before any request, without the value', () => {
  test('an API key holding a line break is a usage error naming x-api-key, not the key; nothing is sent', async () => {
    const { client, requests } = await service((res) => res.end('{}'), { apiKey: `${SECRET}\nmore` });
    const error = await sendBuffered(client, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('the API key (sent as x-api-key) holds U+000A');
    expect((error as Error).message).not.toContain(SECRET);
    expect(requests).toHaveLength(0);
  });

  test('a --header value above U+00FF is a usage error naming the header, not its value', async () => {
    const value = `${SECRET}\u0100`;
    const { client, requests } = await service((res) => res.end('{}'), {
      headers: [{ name: 'x-gateway-token', value, given: value }],
    });
    const error = await sendStreamed(client, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('--header x-gateway-token holds U+0100');
    expect((error as Error).message).not.toContain(SECRET);
    expect(requests).toHaveLength(0);
  });

  test("a wrong key of wirecheck's own that fetch cannot send is a harness bug", async () => {
    const { client } = await service((res) => res.end('{}'));
    const error = await sendBuffered(client, BODY, { apiKey: 'wrong\u007fkey' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessBug);
    expect((error as Error).message).toContain('x-api-key of a wrong-key check holds U+007F');
  });

  test('a key fetch accepts is not refused: whitespace at its ends (stripped by fetch), Latin-1, a tab', async () => {
    const { client, requests } = await service((res) => res.end('{"ok":true}'), {
      apiKey: ' k\u00e9y\tone\r\n',
    });
    const reply = await sendBuffered(client, BODY);
    expect(reply.status).toBe(200);
    expect(requests[0]?.headers['x-api-key']).toBe('k\u00e9y\tone');
  });

  test("an error fetch throws at wirecheck's own request is a harness bug that does not quote the value", async () => {
    const { client } = await service((res) => res.end('{}'));
    vi.stubGlobal('fetch', () =>
      Promise.reject(new TypeError(`Headers.append: "${SECRET}" is an invalid header value.`)),
    );
    const error = await sendBuffered(client, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessBug);
    expect((error as Error).message).toContain('fetch refused the request wirecheck built');
    expect((error as Error).message).not.toContain(SECRET);
  });

  test("an invalid argument undici finds (UND_ERR_INVALID_ARG) is wirecheck's too, not a failed request", async () => {
    const { client } = await service((res) => res.end('{}'));
    const cause = Object.assign(new Error('invalid x-api-key header'), { code: 'UND_ERR_INVALID_ARG' });
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('fetch failed', { cause })));
    await expect(sendBuffered(client, BODY)).rejects.toBeInstanceOf(HarnessBug);
  });

  test('a connection the service resets before the headers is still a failed request', async () => {
    const { client } = await service((res) => res.socket?.destroy());
    await expect(sendBuffered(client, BODY)).rejects.toBeInstanceOf(RequestFailed);
  });
});

describe('messages-service http: a 429 whose body broke off is retried', () => {
  test('the errored body of a 429 is dropped and the request sent again', async () => {
    const { client } = await service((res) => res.end('{}'));
    const broken = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.error(new TypeError('terminated', { cause: new Error('read ECONNRESET') }));
        },
      });
    let calls = 0;
    vi.stubGlobal('fetch', async () => {
      calls++;
      if (calls === 1) return new Response(broken(), { status: 429, headers: { 'retry-after': '0.01' } });
      return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const reply = await sendBuffered(client, BODY);
    expect(calls).toBe(2);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true });
  });
});
