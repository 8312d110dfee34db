import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, createGzip, deflateSync, type Gzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bodyOfChunks, type MessagesExchange, readFixtureFile } from '../../src/fixtures/index.js';
import { recordingScenario, startMockMessagesService } from '../../src/mocks/messages/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';

// The proxy asks the upstream for `identity`, but an upstream may compress anyway. Recorded
// as it came, the body is bytes the by-value scrub cannot read: a key the upstream echoes
// reached the fixture, and a replay sent compressed bytes as the body.

const KEY = 'sk-ant-api03-ENCODEDSECRET-0123456789abcdef';
const json = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: `your key is ${KEY}, as you asked` }],
  stop_reason: 'end_turn',
});

let dir: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-proxy-encoding-'));
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function upstreamOf(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handle(req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** POST through `url` as a client asking for gzip would, and keep the body's bytes as they came (not decoded). */
function post(url: string): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = request(
      `${url}/v1/messages`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'accept-encoding': 'gzip, br' },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        // A cut body resolves with what came (on 'close'); a whole one on 'end', which comes first.
        const done = () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) });
        res.on('end', done);
        res.on('close', done);
        res.on('error', () => {});
      },
    );
    out.on('error', reject);
    out.end('{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"echo my key"}]}');
  });
}

/** Record one exchange through a proxy of `upstream` into a directory of its own: what the client got, the fixture. */
async function recordOne(
  upstream: string,
  name: string,
  options: { recordLimit?: number } = {},
): Promise<{
  got: Awaited<ReturnType<typeof post>>;
  file: string;
  text: string;
  exchange: MessagesExchange;
}> {
  const out = join(dir, name);
  const proxy = await startRecordingProxy({ upstream, outDir: out, ...options });
  let got: Awaited<ReturnType<typeof post>>;
  try {
    got = await post(proxy.url);
    await proxy.settled();
  } finally {
    await proxy.close();
  }
  const [fileName] = await readdir(out);
  const file = join(out, fileName!);
  const text = await readFile(file, 'utf8');
  return { got, file, text, exchange: (await readFixtureFile(file)) as MessagesExchange };
}

/** Parts of the key no text of the reply holds but the key. */
const keyParts = (key: string) => Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));

describe('record messages: an upstream that compresses its reply anyway is recorded decoded and scrubbed', () => {
  const encoders: [header: string, encode: (b: Buffer) => Buffer][] = [
    ['gzip', (b) => gzipSync(b)],
    ['deflate', (b) => deflateSync(b)],
    ['br', (b) => brotliCompressSync(b)],
    // Applied in the order listed: gzip first, then br over it.
    ['gzip, br', (b) => brotliCompressSync(gzipSync(b))],
  ];
  test.each(encoders)(
    'Content-Encoding: %s JSON echoing the key: the client gets the upstream bytes, the fixture the decoded body without the key',
    async (header, encode) => {
      const sent = encode(Buffer.from(json));
      const upstream = await upstreamOf((_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': header,
          'content-length': String(sent.length),
        });
        res.end(sent);
      });
      const { got, text, exchange } = await recordOne(upstream, `json-${header.replace(/\W+/g, '-')}`);
      // Live, the client's own request is answered as the upstream answered it.
      expect(got.status).toBe(200);
      expect(got.headers['content-encoding']).toBe(header);
      expect(got.body.equals(sent)).toBe(true);
      // The fixture: readable JSON, the key masked, nothing left of it in the file.
      for (const part of keyParts(KEY)) expect(text).not.toContain(part);
      const body = JSON.parse(bodyOfChunks(exchange.response.chunks).toString('utf8'));
      expect(body.id).toBe('msg_1');
      expect(body.content[0].text).toMatch(/^your key is \[redacted\**\], as you asked$/);
      // The body recorded is decoded: neither the coding nor the wire's length describes it.
      expect(exchange.response.headers['content-encoding']).toBeUndefined();
      expect(exchange.response.headers['content-length']).toBeUndefined();
      expect(exchange.response.end).toBe('complete');
      expect(exchange.truncated).toBeUndefined();
      expect(exchange.error).toBeUndefined();
    },
  );

  test('a gzip event stream flushed per event, the key echoed over several deltas: the fixture holds the decoded frames, no piece of the key', async () => {
    const pieces = KEY.match(/.{1,5}/g)!;
    const frames = [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_s', type: 'message', role: 'assistant', content: [], model: 'm', usage: { input_tokens: 1, output_tokens: 0 } } })}\n\n`,
      `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
      ...['key: ', ...pieces, ' done'].map(
        (t) =>
          `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } })}\n\n`,
      ),
      `event: content_block_stop\ndata: ${JSON.stringify({ type: 'content_block_stop', index: 0 })}\n\n`,
      `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}\n\n`,
    ];
    const upstream = await upstreamOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      const gzip: Gzip = createGzip();
      gzip.pipe(res);
      let i = 0;
      const next = () => {
        if (i === frames.length) return gzip.end();
        gzip.write(frames[i++]!);
        // Each event reaches the wire on its own, as a compressing streaming server sends it.
        gzip.flush(constants.Z_SYNC_FLUSH, () => setTimeout(next, 2));
      };
      next();
    });
    const { got, text, exchange } = await recordOne(upstream, 'sse-gzip');
    expect(got.headers['content-encoding']).toBe('gzip');
    const decoded = bodyOfChunks(exchange.response.chunks).toString('utf8');
    for (const part of keyParts(KEY)) expect(text).not.toContain(part);
    for (const part of keyParts(KEY)) expect(decoded).not.toContain(part);
    const events = decoded
      .split('\n\n')
      .filter((f) => f !== '')
      .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)![1]!));
    expect(events.map((e) => e.type)).toEqual(frames.map((f) => /^event: (\w+)/.exec(f)![1]));
    const joined = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => e.delta.text)
      .join('');
    expect(joined).toMatch(/^key: \[redacted\**\] done$/);
    expect(joined.length).toBe(`key: ${KEY} done`.length);
    // Decoded in pieces as the events came, not once at the end.
    expect(exchange.response.chunks.length).toBeGreaterThan(1);
  });

  test('a replay of the recording sends the decoded body uncompressed, with no Content-Encoding', async () => {
    const sent = gzipSync(Buffer.from(json));
    const upstream = await upstreamOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(sent);
    });
    const { exchange } = await recordOne(upstream, 'replay');
    const replay = await startMockMessagesService({ scenario: recordingScenario([exchange]) });
    try {
      const got = await post(replay.url);
      expect(got.status).toBe(200);
      expect(got.headers['content-encoding']).toBeUndefined();
      const body = JSON.parse(got.body.toString('utf8'));
      expect(body.content[0].text).toMatch(/^your key is \[redacted\**\], as you asked$/);
    } finally {
      await replay.close();
    }
  });
});

describe('record messages: a compressed reply is recorded within bounds', () => {
  test('a decompression bomb (256 MiB of one letter gzipped) is cut at the recording limit, decoding stopped, memory bounded; the client still gets every byte', async () => {
    const LIMIT = 1024 * 1024;
    // A letter, not NUL: a NUL is written `\u0000` in the fixture, six times the bytes it stands for.
    const letters = Buffer.alloc(1024 * 1024, 'a');
    const gzip = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (b: Buffer) => parts.push(b));
    const compressed = new Promise<Buffer>((resolve) => gzip.on('end', () => resolve(Buffer.concat(parts))));
    for (let i = 0; i < 256; i++) gzip.write(letters);
    gzip.end();
    const bomb = await compressed;
    const upstream = await upstreamOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    let recorded: Awaited<ReturnType<typeof recordOne>>;
    try {
      recorded = await recordOne(upstream, 'bomb', { recordLimit: LIMIT });
    } finally {
      clearInterval(sampler);
    }
    const { got, file, exchange } = recorded;
    expect(got.body.equals(bomb)).toBe(true);
    // Inflated whole, 256 MiB would be held or written; the limit and a little more is what it may cost.
    expect(peak - before).toBeLessThan(96 * 1024 * 1024);
    expect((await stat(file)).size).toBeLessThan(LIMIT + 64 * 1024);
    const body = bodyOfChunks(exchange.response.chunks);
    expect(body.length).toBeGreaterThan(0);
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(body.every((b) => b === 0x61)).toBe(true);
    expect(exchange.truncated).toBe(true);
    expect(exchange.error?.stage).toBe('response');
    expect(exchange.error?.message).toContain(
      `the response body (Content-Encoding: gzip) passed the recording limit of ${LIMIT} bytes once decoded, where decoding stopped`,
    );
  });

  test.each([
    ['zstd', 'the recorder does not decode "zstd" (it decodes gzip, deflate, br and identity)'],
    ['gzip, gzip, gzip, gzip, gzip', '5 codings are stacked; the recorder decodes at most 4'],
  ])(
    'Content-Encoding: %s: the client gets the bytes, the fixture no body and says why',
    async (header, why) => {
      const sent = Buffer.from(`not decoded here, with ${KEY} in it`);
      const upstream = await upstreamOf((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': header });
        res.end(sent);
      });
      const { got, text, exchange } = await recordOne(upstream, `undecoded-${header.length}`);
      expect(got.body.equals(sent)).toBe(true);
      expect(text).not.toContain(KEY);
      expect(exchange.response.chunks).toEqual([]);
      expect(exchange.response.headers['content-encoding']).toBeUndefined();
      expect(exchange.truncated).toBe(true);
      expect(exchange.error?.message).toBe(
        `wirecheck record: the response came with Content-Encoding: ${header}, and ${why}: its body (${sent.length} bytes) was relayed to the client but not recorded`,
      );
    },
  );

  test('a body that does not decode as its Content-Encoding says: the client gets the bytes, the fixture is marked, the proxy goes on', async () => {
    const sent = Buffer.from(`{"not":"gzip at all, ${KEY}"}`);
    const upstream = await upstreamOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(sent);
    });
    const { got, text, exchange } = await recordOne(upstream, 'corrupt');
    expect(got.body.equals(sent)).toBe(true);
    expect(text).not.toContain(KEY);
    expect(exchange.response.chunks).toEqual([]);
    expect(exchange.truncated).toBe(true);
    expect(exchange.error?.message).toMatch(
      /^wirecheck record: the response body \(Content-Encoding: gzip\) does not decode \(incorrect header check\): the recording stops at the 0 bytes decoded before it; 0 encoded bytes more were relayed to the client but not recorded \(the upstream ended it complete\)$/,
    );
  });

  test('a compressed reply the upstream cuts midway: the decoded bytes before the cut are recorded, the end truncated', async () => {
    const long = Buffer.from(`data: ${'x'.repeat(200_000)}\n\n`);
    const upstream = await upstreamOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      const gzip = createGzip();
      gzip.pipe(res, { end: false });
      gzip.write(long);
      gzip.flush(constants.Z_SYNC_FLUSH, () => setTimeout(() => res.destroy(), 20));
    });
    const out = join(dir, 'cut');
    const proxy = await startRecordingProxy({ upstream, outDir: out });
    try {
      await post(proxy.url);
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    const [fileName] = await readdir(out);
    const exchange = (await readFixtureFile(join(out, fileName!))) as MessagesExchange;
    expect(exchange.response.end).toBe('truncated');
    expect(bodyOfChunks(exchange.response.chunks).equals(long)).toBe(true);
    expect(exchange.error).toBeUndefined();
  });
});
