import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import * as zlib from 'node:zlib';
import { createGzip, gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type MockMessagesService, startMockMessagesService } from '../../../src/mocks/messages/index.js';
import { ensureBuilt } from '../../suites/messages-client/helpers.js';
import { messagesBody } from './helpers.js';

const services: MockMessagesService[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(services.splice(0).map((s) => s.close()));
});

const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };

async function mock(
  options: Parameters<typeof startMockMessagesService>[0] = {},
): Promise<MockMessagesService> {
  const service = await startMockMessagesService(options);
  services.push(service);
  return service;
}

interface Answer {
  status: number;
  error: { type: string; message: string } | undefined;
  text: string;
}

/** POST `body` to the mock with `encoding` as its Content-Encoding (a declared length). */
function post(url: string, body: Buffer, encoding: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/messages`,
      {
        method: 'POST',
        agent: false,
        headers: { ...HEADERS, 'content-encoding': encoding, 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let error: Answer['error'];
          try {
            error = (JSON.parse(text) as { error?: Answer['error'] }).error;
          } catch {}
          resolve({ status: res.statusCode ?? 0, error, text });
        });
      },
    );
    // The mock may answer before it read the whole body (a bomb cut short): the rest is not its concern.
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_BODY = Buffer.from(JSON.stringify(messagesBody('Grüße, 世界')));

describe('a body sent with Content-Encoding', () => {
  const encoders: [string, (b: Buffer) => Buffer][] = [
    ['gzip', zlib.gzipSync],
    ['x-gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
    ['identity', (b) => b],
    ['gzip, identity', zlib.gzipSync],
    ['deflate, gzip', (b) => zlib.gzipSync(zlib.deflateSync(b))],
  ];
  for (const [encoding, encode] of encoders) {
    test(`${encoding}: decoded and served, the journal keeping the decoded body`, async () => {
      const service = await mock();
      const answer = await post(service.url, encode(JSON_BODY), encoding);
      expect(answer.status, answer.text).toBe(200);
      const [entry] = service.journal.entries();
      expect(entry?.body).toEqual(JSON.parse(JSON_BODY.toString('utf8')));
      expect(entry?.bodyUndecoded).toBeUndefined();
    });
  }

  test('a coding the mock does not decode is refused with 415, naming Content-Encoding, and journaled as undecoded', async () => {
    const service = await mock();
    const answer = await post(service.url, JSON_BODY, 'compress');
    expect(answer.status).toBe(415);
    expect(answer.error?.type).toBe('invalid_request_error');
    expect(answer.error?.message).toMatch(/^Content-Encoding: compress: the mock does not decode "compress"/);
    const [entry] = service.journal.entries();
    expect(entry?.bodyUndecoded).toBe(answer.error?.message);
    expect(entry?.bodyError).toBeUndefined();
  });

  test('more codings stacked than MAX_CODINGS are refused with 415 before any is decoded (3,000 gzip layers held a request 229 s)', async () => {
    const service = await mock();
    let body = Buffer.from(JSON_BODY);
    const layers = 50;
    for (let i = 0; i < layers; i++) body = gzipSync(body);
    const answer = await post(service.url, body, Array(layers).fill('gzip').join(', '));
    expect(answer.status).toBe(415);
    expect(answer.error?.message).toMatch(
      /^Content-Encoding: 50 codings stacked: the mock decodes at most 4/,
    );
    const stacked = await post(service.url, gzipSync(gzipSync(Buffer.from(JSON_BODY))), 'gzip, gzip');
    expect(stacked.status).toBe(200);
  });

  test('data that does not decode as its coding is refused with 400, naming Content-Encoding, and journaled as undecoded', async () => {
    const service = await mock();
    const answer = await post(service.url, JSON_BODY, 'gzip');
    expect(answer.status).toBe(400);
    expect(answer.error?.message).toMatch(/^Content-Encoding: gzip: the body does not decode as gzip \(/);
    const [entry] = service.journal.entries();
    expect(entry?.bodyUndecoded).toBe(answer.error?.message);
    expect(entry?.bodyError).toBeUndefined();
  });

  test('the body limit counts the decoded bytes: a small gzip body that inflates past it gets 413 request_too_large', async () => {
    const bodyLimit = 64 * 1024;
    const service = await mock({ bodyLimit });
    const big = gzipSync(Buffer.from(JSON.stringify(messagesBody('x'.repeat(2 * bodyLimit)))));
    expect(big.length).toBeLessThan(bodyLimit);
    const answer = await post(service.url, big, 'gzip');
    expect(answer.status).toBe(413);
    expect(answer.error?.type).toBe('request_too_large');
    // Just under the limit decoded is served.
    const fits = gzipSync(Buffer.from(JSON.stringify(messagesBody('x'.repeat(bodyLimit - 1024)))));
    expect((await post(service.url, fits, 'gzip')).status).toBe(200);
  });

  test('the decoded bytes take from the bodies budget: past it the request gets 529, and the budget is whole again after', async () => {
    const bodyLimit = 1024 * 1024;
    const service = await mock({ bodyLimit, bodiesInFlightLimit: 1.5 * bodyLimit });
    // Another request holds its declared megabyte while it trickles.
    const { port } = new URL(service.url);
    const holder = connect({ host: '127.0.0.1', port: Number(port) });
    holder.on('error', () => {});
    sockets.push(holder);
    holder.write(
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: k\r\ncontent-type: application/json\r\ncontent-length: ${bodyLimit}\r\n\r\n{"model":`,
    );
    await service.journal.waitFor(() => service.journal.entries().length === 1, 5_000);
    const body = gzipSync(Buffer.from(JSON.stringify(messagesBody('x'.repeat(768 * 1024)))));
    const refused = await post(service.url, body, 'gzip');
    expect(refused.status).toBe(529);
    expect(refused.error?.message).toMatch(
      /decoded bytes of this gzip body .* would pass its limit of 1572864/,
    );
    holder.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await post(service.url, body, 'gzip')).status).toBe(200);
  });
});

describe('a decompression bomb', () => {
  beforeAll(() => ensureBuilt());

  /** 256 MiB of zeros, gzipped a megabyte at a time (never held whole here either): ~250 KB. */
  async function bomb(): Promise<Buffer> {
    const gzip = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (d: Buffer) => parts.push(d));
    const done = new Promise((r) => gzip.on('end', r));
    const zeros = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 256; i++) {
      if (!gzip.write(zeros)) await new Promise((r) => gzip.once('drain', r));
    }
    gzip.end();
    await done;
    return Buffer.concat(parts);
  }

  test('is cut at the body limit with 413, the mock never inflating it whole (its peak RSS grows by far less than the bomb)', async () => {
    const body = await bomb();
    expect(body.length).toBeLessThan(1024 * 1024);
    // The mock runs in a process of its own, so its peak RSS is its own, not the test runner's.
    const script = `
      const { startMockMessagesService } = await import(${JSON.stringify(new URL('../../../dist/mocks/messages/index.js', import.meta.url).href)});
      const mock = await startMockMessagesService({ apiKey: 'k' });
      const peak = () => process.resourceUsage().maxRSS * 1024;
      process.stdout.write(JSON.stringify({ url: mock.url, before: peak() }) + '\\n');
      process.stdin.once('data', async () => {
        process.stdout.write(JSON.stringify({ after: peak() }) + '\\n');
        await mock.close();
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let pending = '';
    const next = () =>
      new Promise<Record<string, number | string>>((resolve, reject) => {
        const take = () => {
          const line = lines.shift();
          if (line !== undefined) return resolve(JSON.parse(line) as Record<string, number | string>);
          child.stdout.once('data', take);
        };
        child.once('exit', (code) => reject(new Error(`the mock's process exited (${code})`)));
        take();
      });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      pending += d;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
    });
    try {
      const { url, before } = await next();
      const answer = await post(String(url), body, 'gzip');
      expect(answer.status).toBe(413);
      expect(answer.error?.type).toBe('request_too_large');
      child.stdin.write('\n');
      const { after } = await next();
      // The default body limit is 32 MiB: inflated whole, the bomb would add 256 MiB.
      expect(Number(after) - Number(before)).toBeLessThan(96 * 1024 * 1024);
    } finally {
      child.kill();
    }
  }, 60_000);
});
