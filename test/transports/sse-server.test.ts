import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { SseServerTransport } from '../../src/transports/sse-server.js';
import { TransportClosedError, type TransportError } from '../../src/transports/transport.js';
import { eventually, type OpenStream, openStream } from '../servers/tools/helpers.js';

let server: Server | undefined;
let stream: OpenStream | undefined;

/** A bare node:http server handing each GET's response to a new transport. */
async function serve(
  options: { keepAliveMs?: number; messagePath?: string } = {},
): Promise<{ url: string; next: () => Promise<SseServerTransport> }> {
  const made: SseServerTransport[] = [];
  server = createServer((_req, res: ServerResponse) => {
    const transport = new SseServerTransport({ response: res, ...options });
    made.push(transport);
    void transport.start();
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    next: async () => {
      await eventually(() => made.length > 0);
      return made.shift() as SseServerTransport;
    },
  };
}

afterEach(async () => {
  stream?.close();
  stream = undefined;
  server?.closeAllConnections();
  await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())));
  server = undefined;
});

describe('SseServerTransport (spec "Tool-server SSE events")', () => {
  test('start writes the stream headers and the endpoint event with the session id', async () => {
    const { url, next } = await serve({ keepAliveMs: 0 });
    stream = await openStream(url);
    const transport = await next();
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    expect(await stream.frame(0)).toEqual({
      event: 'endpoint',
      data: `/messages?sessionId=${transport.sessionId}`,
      id: undefined,
    });
    expect(transport.endpoint).toBe(`/messages?sessionId=${transport.sessionId}`);
  });

  test('a message path that has a query gets the session id appended with &', async () => {
    const { url, next } = await serve({ keepAliveMs: 0, messagePath: '/rpc?v=1' });
    stream = await openStream(url);
    const transport = await next();
    expect((await stream.frame(0)).data).toBe(`/rpc?v=1&sessionId=${transport.sessionId}`);
  });

  test('send writes one event: message frame per message, data the JSON text', async () => {
    const { url, next } = await serve({ keepAliveMs: 0 });
    stream = await openStream(url);
    const transport = await next();
    await transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'line\nbreak' } });
    const frame = await stream.frame(1);
    expect(frame.event).toBe('message');
    expect(JSON.parse(frame.data)).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'line\nbreak' } });
  });

  test('keep-alive comment frames come every keepAliveMs', async () => {
    const { url } = await serve({ keepAliveMs: 30 });
    stream = await openStream(url);
    await stream.waitFor(() => stream!.comments.length >= 2, 3_000);
    expect(stream.comments.every((c) => c.trim() === 'keep-alive')).toBe(true);
  });

  test('the client closing the stream calls onclose once, and send then rejects', async () => {
    const { url, next } = await serve({ keepAliveMs: 20 });
    stream = await openStream(url);
    const transport = await next();
    let closes = 0;
    transport.onclose = () => closes++;
    stream.close();
    await eventually(() => closes === 1);
    expect(transport.isClosed).toBe(true);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toBeInstanceOf(
      TransportClosedError,
    );
    await transport.close();
    expect(closes).toBe(1);
  });

  test('close ends the response; receive after close delivers nothing', async () => {
    const { url, next } = await serve({ keepAliveMs: 0 });
    stream = await openStream(url);
    const transport = await next();
    const got: unknown[] = [];
    transport.onmessage = (m) => got.push(m);
    transport.receive({ a: 1 });
    await transport.close();
    await stream.ended;
    transport.receive({ b: 2 });
    expect(got).toEqual([{ a: 1 }]);
  });

  test('an unparsable body is reported as a non-fatal parse error carrying the body', async () => {
    const { url, next } = await serve({ keepAliveMs: 0 });
    stream = await openStream(url);
    const transport = await next();
    const errors: TransportError[] = [];
    transport.onerror = (e) => errors.push(e);
    transport.receiveUnparsable('{nope', 'Unexpected token');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: 'parse', fatal: false, input: '{nope' });
    expect(transport.isClosed).toBe(false);
  });
});
