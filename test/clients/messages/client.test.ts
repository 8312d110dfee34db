import { afterEach, describe, expect, test } from 'vitest';
import {
  ConnectionError,
  MessagesClient,
  type MessagesClientOptions,
  MissingApiKeyError,
  RateLimitError,
  StatusError,
  StreamError,
} from '../../../src/clients/messages/index.js';
import type { MessageRequest, StreamEvent } from '../../../src/protocol/messages/index.js';
import { encodeEvent, encodeFrame } from '../../../src/protocol/sse/index.js';
import { writeForever } from '../../hostile/targets.js';
import {
  closedPort,
  errorJson,
  type Handler,
  MESSAGE,
  type RawService,
  rawService,
  SSE_HEADERS,
  streamBody,
  writeSliced,
} from './raw-service.js';

const REQUEST: MessageRequest = {
  model: 'model-x',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'héllo' }],
  tools: [{ type: 'bash_20250124', name: 'bash' }],
};

let services: RawService[] = [];
afterEach(async () => {
  await Promise.all(services.map((s) => s.close()));
  services = [];
});

async function serve(handler: Handler): Promise<RawService> {
  const service = await rawService(handler);
  services.push(service);
  return service;
}

function clientFor(service: RawService, options: MessagesClientOptions = {}): MessagesClient {
  return new MessagesClient({
    env: { WIRECHECK_BASE_URL: service.url, WIRECHECK_API_KEY: 'sk-test' },
    ...options,
  });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const [startFrame] = streamBody().split('\n\n');
const START = `${startFrame}\n\n`;

describe('messages client: requests (Endpoints: POST {base_url}/v1/messages)', () => {
  test('a buffered request sends x-api-key, both version headers and JSON, and returns the message', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_1' });
      res.end(JSON.stringify(MESSAGE));
    });
    expect(await clientFor(service).create(REQUEST)).toEqual(MESSAGE);
    const [sent] = service.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe('sk-test');
    expect(sent?.headers['service-version']).toBe('2023-06-01');
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers.accept).toBe('application/json');
    expect(JSON.parse(sent?.body ?? '')).toEqual(REQUEST);
  });

  test("versionHeader 'service-version' sends only the spec's header name", async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(MESSAGE));
    });
    await clientFor(service, { versionHeader: 'service-version', version: '2023-06-01' }).create(REQUEST);
    expect(service.requests[0]?.headers['service-version']).toBe('2023-06-01');
    expect(service.requests[0]?.headers['anthropic-version']).toBeUndefined();
  });

  test('a client without a key throws MissingApiKeyError and sends nothing', async () => {
    const service = await serve((_req, res) => res.end());
    expect(() => new MessagesClient({ env: { WIRECHECK_BASE_URL: service.url } })).toThrow(
      MissingApiKeyError,
    );
    expect(service.requests).toHaveLength(0);
  });

  test('a malformed 200 buffered body is a StreamError "malformed response body"', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...MESSAGE, role: 'user' }));
    });
    const error = await rejection(clientFor(service).create(REQUEST));
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toMatch(/^malformed response body: role/);
    expect((error as StreamError).status).toBe(200);
  });
});

describe('messages client: streams (Events rules 1 and 3)', () => {
  test('stream: true is reduced to the message, text and tool input split mid-character', async () => {
    const service = await serve(async (_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      await writeSliced(res, streamBody(), 5);
      res.end();
    });
    expect(await clientFor(service).create({ ...REQUEST, stream: true })).toEqual(MESSAGE);
    expect(JSON.parse(service.requests[0]?.body ?? '').stream).toBe(true);
    expect(service.requests[0]?.headers.accept).toBe('text/event-stream');
  });

  test('stream() yields every event in order, then finalMessage() gives the message', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { ...SSE_HEADERS, 'request-id': 'req_s' });
      res.write(encodeFrame('ping', '{"type":"ping"}'));
      res.end(streamBody());
    });
    const stream = clientFor(service).stream(REQUEST);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).not.toContain('ping');
    expect(await stream.finalMessage()).toEqual(MESSAGE);
    expect(stream.requestId).toBe('req_s');
    expect(JSON.parse(service.requests[0]?.body ?? '').stream).toBe(true);
  });

  test('an error event as the first frame is a StreamError with its error type', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(
        encodeEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } as never),
      );
    });
    const error = (await rejection(clientFor(service).create({ ...REQUEST, stream: true }))) as StreamError;
    expect(error).toBeInstanceOf(StreamError);
    expect(error.kind).toBe('stream');
    expect(error.errorType).toBe('overloaded_error');
    expect(error.message).toContain('frame 1');
    expect(service.requests).toHaveLength(1); // an error event is never retried
  });

  test('an error event mid-stream is a StreamError; the events before it were delivered', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(
        `${START}${encodeEvent({ type: 'error', error: { type: 'api_error', message: 'boom' } } as never)}`,
      );
    });
    const seen: StreamEvent[] = [];
    const stream = clientFor(service).stream(REQUEST);
    const error = await rejection(
      (async () => {
        for await (const event of stream) seen.push(event);
      })(),
    );
    expect(seen.map((e) => e.type)).toEqual(['message_start']);
    expect((error as StreamError).errorType).toBe('api_error');
    expect(await rejection(stream.finalMessage())).toBe(error);
  });

  test('malformed JSON data is a StreamError naming the frame', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(`${START}event: content_block_start\ndata: {"type":"content_block_start",\n\n`);
    });
    const error = await rejection(clientFor(service).stream(REQUEST).finalMessage());
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('frame 2 (event content_block_start)');
    expect(error.message).toContain('JSON data');
  });

  test('a JSON type that differs from the event name is a StreamError naming the frame', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(`${START}${encodeFrame('message_delta', '{"type":"message_stop"}')}`);
    });
    const error = await rejection(clientFor(service).stream(REQUEST).finalMessage());
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('frame 2 (event message_delta)');
    expect(error.message).toContain('type "message_stop"');
  });

  test('the server closing the socket mid-stream is a truncated StreamError, not retried', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(START, () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const error = (await rejection(clientFor(service).stream(REQUEST).finalMessage())) as StreamError;
    expect(error).toBeInstanceOf(StreamError);
    expect(error.cause.message).toMatch(/^truncated/);
    expect(error.message).toContain('after frame 1');
    expect(service.requests).toHaveLength(1);
  });

  test('an unterminated last frame is a truncated StreamError', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody().slice(0, -1));
    });
    const error = (await rejection(clientFor(service).create({ ...REQUEST, stream: true }))) as StreamError;
    expect(error.cause.message).toMatch(/^truncated.*unterminated frame/);
  });

  test('a stall after message_start trips the idle watchdog, which closes the connection', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(START); // then silence
    });
    const closed = service.nextClientClose();
    const error = await rejection(clientFor(service, { idleTimeoutMs: 100 }).stream(REQUEST).finalMessage());
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toBe('stream idle for 100 ms after frame 1');
    await closed;
    expect(service.clientClosed).toBe(1);
  });

  test('a streamed reply that is not text/event-stream is a StreamError naming the content type', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(MESSAGE));
    });
    const error = await rejection(clientFor(service).stream(REQUEST).finalMessage());
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('got application/json');
  });

  test('a stream is consumed once: iterating after finalMessage() is a misuse error', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    const stream = clientFor(service).stream(REQUEST);
    expect(await stream.finalMessage()).toEqual(MESSAGE);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/iterate it once, before calling finalMessage/);
  });

  test('a slow consumer is not mistaken for a silent server', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    const stream = clientFor(service, { idleTimeoutMs: 30 }).stream(REQUEST);
    let events = 0;
    for await (const _ of stream) {
      if (events++ === 0) await new Promise((resolve) => setTimeout(resolve, 80));
    }
    expect(await stream.finalMessage()).toEqual(MESSAGE);
  });
});

describe('messages client: aborts (Events rule 5: aborting ends generation)', () => {
  const stalled: Handler = (_req, res) => {
    res.writeHead(200, SSE_HEADERS);
    res.write(START);
  };

  test('aborting a stream closes the connection and rejects with an AbortError', async () => {
    const service = await serve(stalled);
    const controller = new AbortController();
    const closed = service.nextClientClose();
    const stream = clientFor(service).stream(REQUEST, { signal: controller.signal });
    const first = await stream[Symbol.asyncIterator]().next();
    expect(first.value?.type).toBe('message_start');
    controller.abort();
    await closed;
    const error = await rejection(stream.finalMessage());
    expect(error.name).toBe('AbortError');
  });

  test('aborting before the response headers closes the connection', async () => {
    const service = await serve(() => {}); // never answers
    const controller = new AbortController();
    const closed = service.nextClientClose();
    const pending = clientFor(service).create(REQUEST, { signal: controller.signal });
    while (service.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect((await rejection(pending)).name).toBe('AbortError');
    await closed;
    expect(service.clientClosed).toBe(1);
  });

  test('leaving the iteration early closes the connection', async () => {
    const service = await serve(stalled);
    const closed = service.nextClientClose();
    const stream = clientFor(service).stream(REQUEST);
    for await (const _ of stream) break;
    await closed;
    expect((await rejection(stream.finalMessage())).name).toBe('AbortError');
  });
});

describe('messages client: HTTP failures (Errors: distinct failures for rate limiting, connection, status)', () => {
  test.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ])('HTTP %i is a StatusError with the body error type %s', async (status, type) => {
    const service = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_e' });
      res.end(errorJson(type, 'nope'));
    });
    const error = (await rejection(clientFor(service, { maxRetries: 0 }).create(REQUEST))) as StatusError;
    expect(error).toBeInstanceOf(StatusError);
    expect(error.kind).toBe('status');
    expect(error.status).toBe(status);
    expect(error.errorType).toBe(type);
    expect(error.requestId).toBe('req_e');
    expect(error.body).toEqual(JSON.parse(errorJson(type, 'nope')));
  });

  test('a 429 is a RateLimitError with retryAfterMs, after the retries are spent', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(errorJson('rate_limit_error', 'slow down'));
    });
    const error = (await rejection(clientFor(service, { maxRetries: 2 }).create(REQUEST))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.kind).toBe('rate_limit');
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(0);
    expect(error.errorType).toBe('rate_limit_error');
    expect(service.requests).toHaveLength(3);
  });

  test('retries wait as retry-after-ms asks, then succeed', async () => {
    const arrivals: number[] = [];
    const service = await serve((_req, res, attempt) => {
      arrivals.push(performance.now());
      if (attempt <= 2) {
        res.writeHead(attempt === 1 ? 429 : 529, { 'retry-after-ms': '40', 'retry-after': '30' });
        res.end(errorJson(attempt === 1 ? 'rate_limit_error' : 'overloaded_error', 'later'));
        return;
      }
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    expect(await clientFor(service).stream(REQUEST).finalMessage()).toEqual(MESSAGE);
    expect(service.requests).toHaveLength(3);
    // Timers may fire up to ~1 ms early; the waits were 40 ms each.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(38);
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(38);
  });

  test('x-should-retry: false is not retried', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(529, { 'x-should-retry': 'false' });
      res.end(errorJson('overloaded_error', 'no'));
    });
    await rejection(clientFor(service).create(REQUEST));
    expect(service.requests).toHaveLength(1);
  });

  test('a non-retryable status is not retried', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(400);
      res.end('plain text');
    });
    const error = (await rejection(clientFor(service).create(REQUEST))) as StatusError;
    expect(error.errorType).toBeUndefined();
    expect(error.body).toBe('plain text');
    expect(service.requests).toHaveLength(1);
  });

  test('a refused connection is a ConnectionError without status', async () => {
    const port = await closedPort();
    const client = new MessagesClient({
      env: { WIRECHECK_BASE_URL: `http://127.0.0.1:${port}`, WIRECHECK_API_KEY: 'k' },
      maxRetries: 0,
    });
    const error = (await rejection(client.create(REQUEST))) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.kind).toBe('connection');
    expect(error.status).toBeUndefined();
    expect(error.message).toContain('ECONNREFUSED');
  });

  test('a reset before the response headers is a connection failure that is retried', async () => {
    const service = await serve((req, res, attempt) => {
      if (attempt === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(MESSAGE));
    });
    expect(await clientFor(service, { maxRetries: 1 }).create(REQUEST)).toEqual(MESSAGE);
    expect(service.requests).toHaveLength(2);
  });

  test('a reset after 200 headers but before any body byte is retried; nothing was consumed', async () => {
    const service = await serve((_req, res, attempt) => {
      if (attempt === 1) {
        res.writeHead(200, SSE_HEADERS);
        res.flushHeaders();
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    expect(await clientFor(service, { maxRetries: 1 }).stream(REQUEST).finalMessage()).toEqual(MESSAGE);
    expect(service.requests).toHaveLength(2);
  });

  test('response headers that do not come within timeoutMs are a ConnectionError', async () => {
    const service = await serve(() => {});
    const error = await rejection(clientFor(service, { timeoutMs: 80, maxRetries: 0 }).create(REQUEST));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain('no response headers within 80 ms');
  });
});

const CHUNK = 'x'.repeat(64 * 1024);

describe('messages client: bounded reading of a hostile service', () => {
  test('a stream line that never ends fails the request at the 16 MiB line limit and closes the connection', async () => {
    let sent: Promise<number> = Promise.resolve(0);
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(`${START}event: content_block_delta\ndata: `);
      sent = writeForever(res, CHUNK);
    });
    const error = (await rejection(clientFor(service).stream(REQUEST).finalMessage())) as StreamError;
    expect(error).toBeInstanceOf(StreamError);
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('maxLineLength');
    expect(error.message).toContain('16777216-character limit');
    // The service stops because the client closed: it wrote a little more than the limit.
    expect(await sent).toBeLessThan(64 * 1024 * 1024);
  });

  test('a frame that never ends fails the request at the frame limit', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(`${START}event: content_block_delta\n`);
      void writeForever(res, `data: ${'y'.repeat(1000)}\n`);
    });
    const error = (await rejection(clientFor(service).create({ ...REQUEST, stream: true }))) as StreamError;
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('maxFrameLength');
  });

  test('data nested deeper than 512 levels fails the request before anything walks it', async () => {
    const depth = 200_000;
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(
        `${START}event: content_block_start\ndata: {"type":"content_block_start","x":${'['.repeat(depth)}${']'.repeat(depth)}}\n\n`,
      );
    });
    const error = (await rejection(clientFor(service).stream(REQUEST).finalMessage())) as StreamError;
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('512-level limit (maxDepth)');
  });

  test('a buffered body past maxBodyBytes is a StreamError naming the limit; a deep one too', async () => {
    const endless = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"text":"');
      void writeForever(res, CHUNK);
    });
    const big = await rejection(clientFor(endless, { maxBodyBytes: 1024 * 1024 }).create(REQUEST));
    expect(big).toBeInstanceOf(StreamError);
    expect(big.message).toContain('1048576-byte limit (maxBodyBytes)');

    const deep = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"content":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    });
    const nested = await rejection(clientFor(deep).create(REQUEST));
    expect(nested.message).toContain('malformed response body');
    expect(nested.message).toContain('maxDepth');
  });

  test('a stream past maxBodyBytes fails too, and an honest one within it passes', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(START);
      void writeForever(res, 'event: ping\ndata: {"type":"ping"}\n\n'.repeat(100));
    });
    const error = await rejection(
      clientFor(service, { maxBodyBytes: 256 * 1024 })
        .stream(REQUEST)
        .finalMessage(),
    );
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('262144-byte limit (maxBodyBytes)');

    const honest = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    expect(
      await clientFor(honest, { maxBodyBytes: 64 * 1024 })
        .stream(REQUEST)
        .finalMessage(),
    ).toEqual(MESSAGE);
  });
});
