import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chunkLineSize } from '../../src/fixtures/chunks.js';
import { chunkLineBytes } from '../../src/fixtures/format.js';
import { bodyOfChunks, type MessagesExchange, readFixtureFile } from '../../src/fixtures/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';

// The recording limit once counted the body's (decoded) bytes: a gzip of 300 MiB of NULs,
// ~300 KB on the wire, made a 403 MB fixture (each NUL written `\u0000`), which the
// recorder's own readers then refused (over FIXTURE_READ_LIMIT). What a body takes in the
// file is what the limit bounds now.

const LIMIT = 256 * 1024;
/** The head, the end and its error message: the file beyond its chunk lines. */
const MARGIN = 16 * 1024;

let dir: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-file-size-'));
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function upstreamOf(handle: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => handle(res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** POST through the proxy; resolves with the body bytes the client got. */
function post(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = request(`${url}/v1/messages`, { method: 'POST', agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (b: Buffer) => (bytes += b.length));
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end('{}');
  });
}

async function recordOne(upstream: string, name: string): Promise<{ got: number; file: string }> {
  const out = join(dir, name);
  const proxy = await startRecordingProxy({ upstream, outDir: out, recordLimit: LIMIT });
  try {
    const got = await post(proxy.url);
    await proxy.settled();
    const [fileName] = await readdir(out);
    return { got, file: join(out, fileName!) };
  } finally {
    await proxy.close();
  }
}

async function gzipOf(piece: Buffer, times: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<Buffer>((resolve) => gzip.on('end', () => resolve(Buffer.concat(parts))));
  for (let i = 0; i < times; i++) gzip.write(piece);
  gzip.end();
  return done;
}

describe('record messages: the recording limit bounds the fixture file, not the body it holds', () => {
  test('chunkLineSize is the length of the line the fixture writes, for text, escapes and base64', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const cases: Buffer[] = [
      Buffer.alloc(0),
      Buffer.alloc(100, 0),
      Buffer.from('"\\\n\t\r\b\f\x7f é ✓ 😀'),
      Buffer.from([0xc3]),
      Buffer.from([0xef, 0xbb, 0xbf, 0x41]),
    ];
    for (let n = 0; n < 2000; n++) {
      const bytes = Buffer.alloc(Math.floor(random() * 48));
      const wide = random() < 0.3;
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * (wide ? 256 : 128));
      cases.push(bytes);
    }
    for (const [i, bytes] of cases.entries()) {
      const atMs = i === 0 ? 0 : random() * 10 ** (i % 7);
      expect(chunkLineSize(bytes, atMs), `chunk ${bytes.toString('hex')} at ${atMs}`).toBe(
        chunkLineBytes(bytes, atMs).length,
      );
    }
  });

  test('a gzip bomb of NULs (16 MiB from ~16 KB): the fixture stays within the limit, reads back, marked truncated', async () => {
    const bomb = await gzipOf(Buffer.alloc(1024 * 1024, 0), 16);
    const upstream = await upstreamOf((res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const { got, file } = await recordOne(upstream, 'nul-bomb');
    expect(got).toBe(bomb.length);
    const size = (await stat(file)).size;
    expect(size, `${file}: ${size} bytes against a ${LIMIT}-byte limit`).toBeLessThanOrEqual(LIMIT + MARGIN);
    // Its readers, held to the same bound, take it.
    const exchange = (await readFixtureFile(file, { maxBytes: LIMIT + MARGIN })) as MessagesExchange;
    expect(exchange.truncated).toBe(true);
    expect(exchange.response.end).toBe('truncated');
    const body = bodyOfChunks(exchange.response.chunks);
    // Escaped six times over, the body is less than a sixth of the limit (whole chunks), not nothing.
    expect(body.length).toBeGreaterThanOrEqual(LIMIT / 8);
    expect(body.every((b) => b === 0)).toBe(true);
    expect(exchange.error?.message).toContain(`recording limit of ${LIMIT} bytes once decoded`);
  });

  test('raw control bytes, not compressed (2 MiB in 16 KiB chunks): the fixture stays within the limit, reads back, marked truncated', async () => {
    const piece = Buffer.alloc(16 * 1024, 0x01);
    const upstream = await upstreamOf((res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let sent = 0;
      const next = (): void => {
        while (sent < 128) {
          sent++;
          if (!res.write(piece)) return void res.once('drain', next);
        }
        res.end();
      };
      next();
    });
    const { got, file } = await recordOne(upstream, 'controls');
    expect(got).toBe(128 * piece.length);
    const size = (await stat(file)).size;
    expect(size, `${file}: ${size} bytes against a ${LIMIT}-byte limit`).toBeLessThanOrEqual(LIMIT + MARGIN);
    const exchange = (await readFixtureFile(file, { maxBytes: LIMIT + MARGIN })) as MessagesExchange;
    expect(exchange.truncated).toBe(true);
    const body = bodyOfChunks(exchange.response.chunks);
    expect(body.length).toBeGreaterThanOrEqual(LIMIT / 8);
    expect(body.every((b) => b === 1)).toBe(true);
    expect(exchange.error?.message).toContain(`recording limit of ${LIMIT} bytes:`);
  });
});
