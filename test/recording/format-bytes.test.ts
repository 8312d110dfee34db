import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { formatExchangeBytes } from '../../src/fixtures/format.js';
import { chunkOf, formatFixture, type MessagesExchange } from '../../src/fixtures/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';
import { postRaw } from './raw-client.js';

function exchangeOf(body: unknown, chunks: MessagesExchange['response']['chunks']): MessagesExchange {
  return {
    format: 'wirecheck-fixture',
    version: 1,
    kind: 'messages-exchange',
    recordedAt: '2026-01-01T00:00:00.000Z',
    source: 'proxy of http://127.0.0.1:1',
    request: { method: 'POST', path: '/v1/messages', headers: { 'x-api-key': '[redacted]' }, body },
    response: {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'x-note': 'ünï "q" \\' },
      headersAtMs: 1.5,
      end: 'complete',
      endAtMs: 9.25,
      chunks,
    },
  };
}

/** Bytes a recording meets: SSE text with escapes and non-ASCII, controls, a BOM, cut UTF-8, noise. */
const pieceOf = fc.oneof(
  fc.string({ unit: 'grapheme' }).map((s) => Buffer.from(s, 'utf8')),
  fc
    .constantFrom('data: {"text":"ünïcode \\"q\\" a\\\\b"}\n\n', '\uFEFFbom\t\r\n\u0001\u001f\u007f\u2028')
    .map((s) => Buffer.from(s, 'utf8')),
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  fc.constant(Buffer.from('ü', 'utf8').subarray(0, 1)),
);

describe('record messages: a fixture file formatted from raw chunks is the fixture of those chunks', () => {
  test('formatExchangeBytes equals formatFixture of the chunks made with chunkOf, byte for byte', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(pieceOf, fc.double({ min: 0, max: 1e6, noNaN: true })), { maxLength: 12 }),
        fc.jsonValue(),
        (pieces, body) => {
          const bytes = pieces.map(([b]) => b);
          const atMs = pieces.map(([, t]) => t);
          const chunks = pieces.map(([b, t]) => chunkOf(b, t));
          const expected = Buffer.from(formatFixture(exchangeOf(body, chunks)), 'utf8');
          const actual = formatExchangeBytes(exchangeOf(body, []), { bytes, atMs });
          expect(actual.equals(expected)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('text that grows sixfold escaped (control characters) is written whole', () => {
    const bytes = [Buffer.from('\u0001'.repeat(5000)), Buffer.alloc(3000, 0xff)];
    const atMs = [1, 2];
    const chunks = bytes.map((b, i) => chunkOf(b, atMs[i] as number));
    const expected = Buffer.from(formatFixture(exchangeOf({}, chunks)), 'utf8');
    expect(formatExchangeBytes(exchangeOf({}, []), { bytes, atMs }).equals(expected)).toBe(true);
  });

  test('the chunks of the exchange given are not read: only the raw ones are written', () => {
    const stale = exchangeOf({}, [chunkOf(Buffer.from('stale'), 1)]);
    const text = formatExchangeBytes(stale, { bytes: [Buffer.from('fresh')], atMs: [2] }).toString('utf8');
    expect(text).toContain('"text":"fresh"');
    expect(text).not.toContain('stale');
  });
});

describe('record messages: the file the proxy writes is the fixture of the exchange it recorded', () => {
  test('file bytes equal formatFixture of the exchange (escapes, UTF-8 cut between writes)', async () => {
    const u = Buffer.from('ü', 'utf8');
    const pieces = [
      Buffer.from('event: ping\ndata: {"type":"ping","q":"\\"a\\\\b\\""}\n\n'),
      Buffer.concat([Buffer.from('data: {"t":"x'), u.subarray(0, 1)]),
      Buffer.concat([u.subarray(1), Buffer.from('"}\n\n')]),
    ];
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const next = () => {
        const piece = pieces[i++];
        if (piece === undefined) res.end();
        else res.write(piece, () => setTimeout(next, 5));
      };
      next();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-format-bytes-'));
    const seen: { exchange: MessagesExchange; file: string | undefined }[] = [];
    const proxy = await startRecordingProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      outDir: dir,
      onExchange: (exchange, file) => seen.push({ exchange, file }),
    });
    try {
      await postRaw(proxy.url, { model: 'm', max_tokens: 1, stream: true, messages: [] });
      await proxy.settled();
      const [first] = seen;
      expect(first?.file).toBeDefined();
      const chunks = first?.exchange.response.chunks ?? [];
      expect(chunks.some((c) => 'text' in c)).toBe(true);
      const written = await readFile(first?.file as string);
      expect(written.equals(Buffer.from(formatFixture(first?.exchange as MessagesExchange), 'utf8'))).toBe(
        true,
      );
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
