import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import {
  createMockMessagesApp,
  type MockMessagesService,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { BodyBudget } from '../../../src/servers/http/body-budget.js';
import { messagesBody } from './helpers.js';

const services: MockMessagesService[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(services.splice(0).map((s) => s.close()));
});

const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };

/**
 * POST `body` as Node sends a body written in parts without a Content-Length (chunked):
 * its first part, then after `pauseMs` the rest. Resolves with the status and the body.
 */
function postChunked(url: string, body: string, pauseMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/messages`, { method: 'POST', agent: false, headers: HEADERS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), pauseMs);
  });
}

/** A connection that sends a request's headers and `start` of its body, then nothing. */
function stalled(url: string, framing: string, start = ''): Socket {
  const { port } = new URL(url);
  const socket = connect({ host: '127.0.0.1', port: Number(port) });
  socket.on('error', () => {});
  socket.write(
    `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: k\r\ncontent-type: application/json\r\n${framing}\r\n\r\n${start}`,
  );
  sockets.push(socket);
  return socket;
}

describe('the body budget charges a chunked body what it comes to', () => {
  test('six ordinary chunked uploads at once, each still arriving, are all served (no 529 nobody asked for)', async () => {
    const mock = await startMockMessagesService({
      bodyLimit: 1024 * 1024,
      bodiesInFlightLimit: 4 * 1024 * 1024,
    });
    services.push(mock);
    const body = JSON.stringify(messagesBody('hi'));
    const results = await Promise.all(Array.from({ length: 6 }, () => postChunked(mock.url, body, 300)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(mock.journal.entries().every((e) => e.headers['transfer-encoding'] === 'chunked')).toBe(true);
  });

  test('connections that sent only the headers of a chunked body refuse nobody else', async () => {
    const mock = await startMockMessagesService({
      bodyLimit: 1024 * 1024,
      bodiesInFlightLimit: 4 * 1024 * 1024,
    });
    services.push(mock);
    for (let i = 0; i < 4; i++) stalled(mock.url, 'transfer-encoding: chunked');
    await mock.journal.waitFor(() => mock.journal.entries().length === 4, 5_000);
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(messagesBody('hi')),
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(200);
  });

  test('a chunked body that would pass the budget is still refused with 529 overloaded_error, and served once there is room', async () => {
    const bodyLimit = 1024 * 1024;
    const mock = await startMockMessagesService({ bodyLimit, bodiesInFlightLimit: 1.5 * bodyLimit });
    services.push(mock);
    // Another request holds its declared megabyte while it trickles.
    const holder = stalled(mock.url, `content-length: ${bodyLimit}`, '{"model":');
    await mock.journal.waitFor(() => mock.journal.entries().length === 1, 5_000);
    const big = JSON.stringify(messagesBody('x'.repeat(768 * 1024)));
    const refused = await postChunked(mock.url, big, 50);
    expect(refused.status).toBe(529);
    expect((JSON.parse(refused.text) as { error: { type: string; message: string } }).error).toMatchObject({
      type: 'overloaded_error',
      message: expect.stringMatching(
        /chunked body .* would pass its limit of 1572864 \(bodiesInFlightLimit\)/,
      ),
    });
    holder.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await postChunked(mock.url, big, 50)).status).toBe(200);
  });

  test('a request alone may take chunk after chunk up to the body limit, even past a smaller budget', () => {
    const budget = new BodyBudget(100);
    expect(budget.takeMore(80, 0)).toBe(true);
    expect(budget.takeMore(80, 80)).toBe(true);
    expect(budget.take(1)).toBe(false);
    expect(budget.takeMore(1, 0)).toBe(false);
    budget.give(160);
    expect(budget.inFlight).toBe(0);
  });

  test('a request must arrive whole within 60 s (a body that stalls is cut); fastify sets no such limit by default', async () => {
    const { app } = createMockMessagesApp();
    await app.ready();
    expect(app.server.requestTimeout).toBe(60_000);
    await app.close();
  });
});
