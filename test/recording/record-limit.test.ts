import { mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  bodyOfChunks,
  FixtureFormatError,
  type MessagesExchange,
  readFixtureFile,
  type ToolSession,
} from '../../src/fixtures/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';
import { startSseRecordingProxy } from '../../src/recording/tools/index.js';

const CHUNK = 16 * 1024;
const CHUNKS = 128; // 2 MiB sent, against a 128 KiB recording limit
const LIMIT = 128 * 1024;
/** Head, end and a line per chunk, with JSON escaping of the filler (none: plain letters). */
const OVERHEAD = 16 * 1024;

let dir: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-limit-'));
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `count` chunks of `frame`, each after the previous one drained, then ends (or not, if `hold`). */
function flood(res: import('node:http').ServerResponse, frame: string, count: number, hold = false): void {
  let sent = 0;
  const next = (): void => {
    while (sent < count) {
      sent++;
      if (!res.write(frame)) {
        res.once('drain', next);
        return;
      }
    }
    if (!hold) res.end();
  };
  next();
}

/** GET `url` and count the body bytes; resolves on the end or a cut of the body. */
function download(url: string, until?: (bytes: number) => void): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let bytes = 0;
      res.on('data', (b: Buffer) => {
        bytes += b.length;
        until?.(bytes);
      });
      const done = () => resolve({ status: res.statusCode ?? 0, bytes });
      res.on('end', done);
      res.on('close', done);
      res.on('error', () => {});
    })
      .on('error', reject)
      .end();
  });
}

describe('recordings are bounded in size ("everything read from a target is bounded")', () => {
  test('messages proxy: a flooding upstream past recordLimit reaches the client whole, the fixture stops at the limit and is marked truncated', async () => {
    const frame = `data: ${'x'.repeat(CHUNK - 8)}\n\n`;
    const upstream = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        flood(res, frame, CHUNKS);
      }),
    );
    const out = join(dir, 'messages');
    const proxy = await startRecordingProxy({ upstream, outDir: out, recordLimit: LIMIT });
    try {
      const got = await download(`${proxy.url}/v1/messages`);
      expect(got).toEqual({ status: 200, bytes: frame.length * CHUNKS });
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    const [file] = await readdir(out);
    const path = join(out, file!);
    expect((await stat(path)).size).toBeLessThanOrEqual(LIMIT + OVERHEAD);
    const exchange = (await readFixtureFile(path)) as MessagesExchange;
    expect(bodyOfChunks(exchange.response.chunks).length).toBeLessThanOrEqual(LIMIT);
    expect(bodyOfChunks(exchange.response.chunks).length).toBeGreaterThan(0);
    expect(exchange.truncated).toBe(true);
    expect(exchange.response.end).toBe('truncated');
    const unrecorded = frame.length * CHUNKS - bodyOfChunks(exchange.response.chunks).length;
    expect(exchange.error?.message).toContain(`recording limit of ${LIMIT} bytes: ${unrecorded} bytes more`);
  });

  test('SSE tool recorder: a flood past recordLimit reaches the client whole, the session stops at the limit and its stream is marked truncated', async () => {
    const frame = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"pad":"${'y'.repeat(CHUNK - 120)}"}}\n\n`;
    const upstream = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages?sessionId=s1\n\n');
        flood(res, frame, CHUNKS);
      }),
    );
    const out = join(dir, 'sse');
    const proxy = await startSseRecordingProxy({
      upstream: `${upstream}/sse`,
      outDir: out,
      recordLimit: LIMIT,
    });
    try {
      const got = await download(proxy.url);
      expect(got.bytes).toBe(
        'event: endpoint\ndata: /messages?sessionId=s1\n\n'.length + frame.length * CHUNKS,
      );
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    const [file] = await readdir(out);
    const path = join(out, file!);
    expect((await stat(path)).size).toBeLessThanOrEqual(LIMIT + OVERHEAD);
    const session = (await readFixtureFile(path)) as ToolSession;
    expect(session.stream?.end).toBe('truncated');
    expect(session.stream?.endpoint).toBe('/messages?sessionId=s1');
    expect(session.messages.length).toBeGreaterThan(0);
  });

  test('SSE tool recorder stopped mid-flood (the SIGINT path: close()) writes the capped session', async () => {
    const frame = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"pad":"${'z'.repeat(CHUNK - 120)}"}}\n\n`;
    const upstream = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages?sessionId=s2\n\n');
        // Never ends by itself: bounded in count so the test server stops too.
        flood(res, frame, 4096, true);
      }),
    );
    const out = join(dir, 'sse-stopped');
    const proxy = await startSseRecordingProxy({
      upstream: `${upstream}/sse`,
      outDir: out,
      recordLimit: LIMIT,
    });
    let past!: () => void;
    const pastLimit = new Promise<void>((r) => (past = r));
    const got = download(proxy.url, (bytes) => {
      if (bytes > 4 * LIMIT) past();
    });
    await pastLimit;
    await proxy.close();
    await got;
    const files = await readdir(out);
    expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const path = join(out, files.find((f) => f.endsWith('.json'))!);
    expect((await stat(path)).size).toBeLessThanOrEqual(LIMIT + OVERHEAD);
    const session = (await readFixtureFile(path)) as ToolSession;
    expect(session.stream?.end).toBe('truncated');
  });
});

describe('fixture readers refuse a file over their cap before reading it', () => {
  test('readFixtureFile names the file, its size and the cap', async () => {
    const file = join(dir, 'huge.json');
    await writeFile(file, '');
    // Sparse: 300 MiB on paper, nothing on disk.
    await truncate(file, 300 * 1024 * 1024);
    const refused = await readFixtureFile(file).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FixtureFormatError);
    expect((refused as Error).message).toBe(
      `${file}: the file is ${300 * 1024 * 1024} bytes, over the ${256 * 1024 * 1024}-byte limit of a fixture: not read (a recorder keeps at most 64 MiB of a body or session)`,
    );
  });

  test('a partial tool-session journal over the cap is refused too', async () => {
    const file = join(dir, 'small-cap.json.partial');
    await writeFile(file, 'x'.repeat(2048));
    const refused = await readFixtureFile(file, { maxBytes: 1024 }).catch((e: unknown) => e);
    expect((refused as Error).message).toContain(`${file}: the file is 2048 bytes, over the 1024-byte limit`);
  });
});
