import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import {
  BudgetSpent,
  MAX_STREAM_ITEMS,
  RequestFailed,
  ServiceBusy,
  type ServiceClient,
  sendBuffered,
  sendStreamed,
} from '../../../src/suites/messages-service/http.js';
import { writeForever } from '../../hostile/targets.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A service on 127.0.0.1:0 answering every request with `answer`. */
async function service(
  answer: (res: ServerResponse) => void,
  requestTimeoutMs = 10_000,
): Promise<ServiceClient> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'k',
    requestTimeoutMs,
    signal: new AbortController().signal,
  };
}

const SSE = { 'content-type': 'text/event-stream' };
const BODY = JSON.stringify({ model: 'm', max_tokens: 8, messages: [], stream: true });

describe('messages-service suite: one reply is bounded in time, bytes, lines, frames and nesting', () => {
  test('a stream that never ends is cut at the request budget, which the not-exercised error names', async () => {
    const client = await service((res) => {
      res.writeHead(200, SSE);
      const timer = setInterval(() => res.write('event: ping\ndata: {"type":"ping"}\n\n'), 20);
      res.on('close', () => clearInterval(timer));
    }, 600);
    const started = performance.now();
    const error = await sendStreamed(client, BODY).catch((e: unknown) => e);
    // The stream never ends: only a hang is the fault (that the budget cut it is BudgetSpent,
    // below), and a bound near the real time fails under load.
    expect(performance.now() - started).toBeLessThan(20_000);
    // The cut is wirecheck's: the spec bounds no reply's time, so the stream is not judged.
    expect(error).toBeInstanceOf(BudgetSpent);
    expect(error).toBeInstanceOf(NotExercised);
    expect((error as Error).message).toMatch(
      /^a stream \([1-9]\d* frames read\) did not end within wirecheck's budget of one request \(600 ms, requestTimeoutMs\)/,
    );
  });

  test('a buffered body that trickles past the request budget is not exercised, naming the budget', async () => {
    const client = await service((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    }, 600);
    const error = await sendBuffered(client, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetSpent);
    expect((error as Error).message).toMatch(
      /^a buffered reply \(HTTP 200\) did not end within wirecheck's budget of one request \(600 ms/,
    );
  });

  test('headers that do not come within the request budget are not exercised either, naming the budget', async () => {
    const client = await service(() => undefined, 300);
    const error = await sendBuffered(client, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetSpent);
    expect((error as Error).message).toMatch(/^a buffered reply \(no headers arrived\) did not end within/);
  });

  test('a stream the service resets within the budget is no budget cut: its read error is judged', async () => {
    const client = await service((res) => {
      res.writeHead(200, SSE);
      res.write('event: ping\ndata: {"type":"ping"}\n\n');
      setTimeout(() => res.destroy(), 50);
    });
    const reply = await sendStreamed(client, BODY);
    expect(reply.readError).toBeDefined();
    expect(reply.frames).toHaveLength(1);
  });

  test('a stream line that never ends stops the reading at the line limit', async () => {
    const client = await service((res) => {
      res.writeHead(200, SSE);
      res.write('event: message_start\ndata: ');
      void writeForever(res, 'x'.repeat(64 * 1024));
    });
    const reply = await sendStreamed(client, BODY);
    expect(reply.readError).toMatch(
      /^wirecheck stopped reading: an SSE line longer than the 16777216-character limit \(maxLineLength\)/,
    );
    expect(reply.unterminated).toBe('');
  });

  test('a stream of tiny frames stops at MAX_STREAM_ITEMS frames kept', async () => {
    const client = await service((res) => {
      res.writeHead(200, SSE);
      void writeForever(res, 'data: x\n\n'.repeat(1000));
    });
    const reply = await sendStreamed(client, BODY);
    expect(reply.frames).toHaveLength(MAX_STREAM_ITEMS);
    expect(reply.readError).toContain(`went past ${MAX_STREAM_ITEMS} frames (MAX_STREAM_ITEMS)`);
  });

  test('a body past 32 MiB is cut off, naming the limit', async () => {
    const client = await service((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      void writeForever(res, ' '.repeat(64 * 1024));
    });
    const failure = await sendBuffered(client, BODY).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RequestFailed);
    expect((failure as Error).message).toContain(
      '33554432-byte limit of one reply (maxBodyBytes, default MAX_BODY_BYTES)',
    );
  });

  test('a buffered body nested deeper than 512 levels is not parsed; the JSON error names the limit', async () => {
    const client = await service((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"content":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`);
    });
    const reply = await sendBuffered(client, BODY);
    expect(reply.json).toBeUndefined();
    expect(reply.jsonError).toContain('512-level limit (maxDepth)');
  });
});

describe('messages-service suite: a service busy through the retries is not judged', () => {
  test('a 503 is ServiceBusy, unless the caller asks for the reply (the probe, to say so)', async () => {
    const client = await service((res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('busy'));
    await expect(sendBuffered(client, BODY)).rejects.toBeInstanceOf(ServiceBusy);
    expect((await sendBuffered(client, BODY, { busy: 'return' })).status).toBe(503);
    // A stream kept through an error event's retries is no stream kept through a busy status.
    await expect(sendStreamed(client, BODY, { busyStream: 'return' })).rejects.toBeInstanceOf(ServiceBusy);
  });

  test('a 503, never retried, is not said to come after the retries of a 429 or 529', async () => {
    let asked = 0;
    const client = await service((res) => {
      asked++;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    });
    const error = await sendBuffered(client, BODY).catch((e: unknown) => e);
    expect(asked).toBe(1);
    expect((error as Error).message).toBe(
      'the service answered HTTP 503 busy (not retried: wirecheck retries only 429 and 529): it is rate-limited or overloaded, so this could not be judged now (run again later)',
    );
  });
});
