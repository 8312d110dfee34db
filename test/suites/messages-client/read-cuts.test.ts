import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { cutBytes, readCutsOf } from '../../../src/suites/messages-client/read-cuts.js';
import { startReadSplittingRelay } from '../../../src/suites/messages-client/relay.js';

const bytes = (s: string) => new TextEncoder().encode(s);

test('reads are cut inside every multi-byte character and between CR and LF', () => {
  const chunk = bytes('aé\r\n👋');
  // a | 0xC3 | 0xA9 \r | \n 0xF0 | 0x9F 0x91 0x8B
  expect(readCutsOf({ insideCharacters: true })(chunk)).toEqual([2, 4, 6]);
});

test('random cuts are reproducible from their seed', () => {
  const chunk = bytes('x'.repeat(500));
  const a = readCutsOf({ random: { seed: 7, meanGapBytes: 10 } })(chunk);
  const b = readCutsOf({ random: { seed: 7, meanGapBytes: 10 } })(chunk);
  expect(a).toEqual(b);
  expect(a.length).toBeGreaterThan(10);
  expect(a.every((c) => c > 0 && c < chunk.length)).toBe(true);
});

test('cutting keeps every byte in order', () => {
  const chunk = bytes('hello, wörld');
  const pieces = cutBytes(chunk, [1, 5, 9]);
  expect(pieces.map((p) => p.length)).toEqual([1, 4, 4, 4]);
  expect(Buffer.concat(pieces)).toEqual(Buffer.from(chunk));
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

test('the relay delivers a body written at once as separate reads, cut inside characters', async () => {
  const text = 'Привет 👋 世界 '.repeat(5);
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const relay = await startReadSplittingRelay(
    `http://127.0.0.1:${port}`,
    readCutsOf({ insideCharacters: true }),
  );
  try {
    const response = await fetch(`${relay.url}/`, { headers: { connection: 'close' } });
    const reads: Uint8Array[] = [];
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) reads.push(chunk);
    expect(Buffer.concat(reads).toString('utf8')).toBe(text);
    // At least one read ends inside a character: decoding it alone gives U+FFFD.
    expect(reads.some((r) => new TextDecoder().decode(r).includes('\uFFFD'))).toBe(true);
    expect(reads.length).toBeGreaterThan(10);
  } finally {
    await relay.close();
  }
});
