import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RecordingProxy, startRecordingProxy } from '../../src/recording/index.js';
import type { RecordedSummary } from '../../src/recording/proxy.js';
import { startRelayServer } from '../../src/recording/relay-server.js';

// A client may send its whole request and then FIN its side (curl --no-keepalive on some
// platforms, `nc -N`, scripted clients): HTTP/1.1 lets it, and the answer must still come back.

let upstream: Server;
let proxy: RecordingProxy;
let dir: string;
const recorded: RecordedSummary[] = [];
const answer = JSON.stringify({ id: 'msg_half', type: 'message' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-half-close-'));
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      // A little later: the client's FIN has reached the proxy before the answer does.
      setTimeout(
        () =>
          res
            .writeHead(200, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(answer),
            })
            .end(answer),
        50,
      ),
    );
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const port = (upstream.address() as AddressInfo).port;
  proxy = await startRecordingProxy({
    upstream: `http://127.0.0.1:${port}`,
    outDir: dir,
    onRecorded: (summary) => recorded.push(summary),
  });
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => upstream.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

/** Send `raw` and half-close at once; what came back before the connection closed. */
function halfClosed(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    socket.on('data', (b: Buffer) => (got += b.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
    socket.on('connect', () => socket.end(raw));
  });
}

test('a request followed by the client half-closing is still relayed and answered', async () => {
  const body = JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
  const got = await halfClosed(
    proxy.url,
    `POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  expect(got.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  expect(got.endsWith(answer)).toBe(true);
  await proxy.settled();
  expect(recorded).toEqual([expect.objectContaining({ status: 200, end: 'complete' })]);
});

// The tool-session recorders (SSE, Streamable HTTP) listen through the same relay server.
test('the relay server every recorder listens with answers a half-closed request', async () => {
  const relay = await startRelayServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(202, { 'content-length': '0' }).end(), 50));
  }, {});
  try {
    const got = await halfClosed(
      relay.origin,
      'POST /messages HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\n{}',
    );
    expect(got.split('\r\n')[0]).toBe('HTTP/1.1 202 Accepted');
  } finally {
    await relay.stop();
  }
});

test('a FIN during the answer to a GET (an SSE stream that never ends) still ends it: that is how a client leaves', async () => {
  let closed!: () => void;
  const streamClosed = new Promise<void>((r) => (closed = r));
  const relay = await startRelayServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n');
    res.on('close', closed);
  }, {});
  try {
    const got = await halfClosed(
      relay.origin,
      'GET /sse HTTP/1.1\r\nHost: x\r\naccept: text/event-stream\r\n\r\n',
    );
    expect(got.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    await streamClosed;
  } finally {
    await relay.stop();
  }
});
