import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, test } from 'vitest';
import {
  bytesOfChunk,
  importHar,
  type MessagesExchange,
  readFixtureFile,
  validateFixture,
} from '../../src/fixtures/index.js';
import {
  loadRecordings,
  recordingScenario,
  startMockMessagesService,
} from '../../src/mocks/messages/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';
import { postRaw } from './raw-client.js';

const BIN = resolve(import.meta.dirname, '../../bin/wirecheck.js');
const KEY = 'sk-ant-api03-CLIENT-KEY-0123456789abcdefghij';
const ENV_KEY = 'sk-ant-api03-ENV-KEY-9876543210zyxwvutsrq';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wc-record-hardening-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function listen(handler: (res: ServerResponse, url: string) => void): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(res, req.url ?? '/'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sseRequest = { model: 'm', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'hi' }] };

describe('record messages: no secret reaches a fixture', () => {
  test('query-string keys, custom credential headers and keys the upstream echoes (header, body split across chunks) are redacted; chunk boundaries kept', async () => {
    const echoed = `data: {"echo":"${KEY}","env":"${ENV_KEY}"}\n\n`;
    const cut = echoed.indexOf(KEY) + 10;
    const envCut = echoed.indexOf(ENV_KEY) + 5;
    const upstream = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-echo': `key=${KEY}`, 'x-env': ENV_KEY });
      const pieces = [echoed.slice(0, cut), echoed.slice(cut, envCut), echoed.slice(envCut)];
      let i = 0;
      const next = () => {
        const piece = pieces[i++];
        if (piece === undefined) res.end();
        else res.write(piece, () => setTimeout(next, 10));
      };
      next();
    });
    const dir = await tempDir();
    const proxy = await startRecordingProxy({
      upstream,
      outDir: dir,
      secrets: [ENV_KEY],
      keepExchanges: true,
    });
    cleanup.push(() => proxy.close());
    const seen = await new Promise<Buffer>((ok, fail) => {
      const body = JSON.stringify({ ...sseRequest, metadata: { api_key: KEY } });
      const req = request(
        `${proxy.url}/v1/messages?api_key=${KEY}&key=${KEY}&beta=1`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-goog-api-key': 'CUSTOM-HEADER-SECRET-123',
            'x-custom-token': 'CUSTOM-TOKEN-SECRET-456',
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (b: Buffer) => parts.push(b));
          res.on('end', () => ok(Buffer.concat(parts)));
        },
      );
      req.on('error', fail);
      req.end(body);
    });
    // The client got the upstream's bytes unchanged: redaction is of the recording only.
    expect(seen.toString()).toBe(echoed);
    await proxy.settled();
    const [file] = await readdir(dir);
    const text = await readFile(join(dir, file!), 'utf8');
    for (const secret of [KEY, ENV_KEY, 'CUSTOM-HEADER-SECRET', 'CUSTOM-TOKEN-SECRET'])
      expect(text, secret).not.toContain(secret);
    const exchange = (await readFixtureFile(join(dir, file!))) as MessagesExchange;
    expect(exchange.request.path).toBe('/v1/messages?api_key=[redacted]&key=[redacted]&beta=1');
    expect(exchange.request.headers).toMatchObject({
      'x-goog-api-key': '[redacted]',
      'x-custom-token': '[redacted]',
    });
    expect(exchange.request.body).toMatchObject({ metadata: { api_key: '[redacted]' } });
    expect(exchange.response.headers['x-echo']).toBe('key=[redacted]');
    expect(exchange.response.headers['x-env']).toBe('[redacted]');
    // Three chunks as the upstream wrote them, each of its own length; the keys masked.
    const chunks = exchange.response.chunks.map(bytesOfChunk);
    expect(chunks.map((c) => c.length)).toEqual([cut, envCut - cut, echoed.length - envCut]);
    expect(Buffer.concat(chunks).toString()).toMatch(
      /^data: \{"echo":"\[redacted\**\]","env":"\[redacted\**\]"\}\n\n$/,
    );
    expect(proxy.exchanges[0]).toEqual(exchange);
  });

  test('a request body nested deeper than 512 levels is recorded as text, secrets scrubbed, and the file is written', async () => {
    const upstream = await listen((res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    const dir = await tempDir();
    const proxy = await startRecordingProxy({ upstream, outDir: dir, keepExchanges: true });
    cleanup.push(() => proxy.close());
    const deep = `{"model":"m","key_note":"${KEY}","x":${'['.repeat(3_000)}${']'.repeat(3_000)}}`;
    const seen = await postRaw(proxy.url, JSON.parse(deep), { 'x-api-key': KEY });
    expect(seen.status).toBe(200);
    await proxy.settled();
    const [file] = await readdir(dir);
    const exchange = (await readFixtureFile(join(dir, file!))) as MessagesExchange;
    expect(exchange.request.body).toBeUndefined();
    expect(exchange.request.bodyText).toBe(deep.replace(KEY, '[redacted]'));
  });

  test('HAR import redacts the same way: query keys, credential headers and fields, the key echoed in the response', () => {
    const har = {
      log: {
        entries: [
          {
            request: {
              method: 'POST',
              url: `https://api.example/v1/messages?key=${KEY}`,
              headers: [
                { name: 'x-api-key', value: KEY },
                { name: 'Cookie', value: 'sid=COOKIE-SECRET-123456' },
              ],
              postData: {
                mimeType: 'application/json',
                text: JSON.stringify({ ...sseRequest, password: 'hunter2hunter2' }),
              },
            },
            response: {
              status: 200,
              headers: [{ name: 'x-echo', value: KEY }],
              content: { mimeType: 'text/event-stream', text: `data: {"k":"${KEY}","e":"${ENV_KEY}"}\n\n` },
            },
          },
        ],
      },
    };
    const [exchange] = importHar(har, 'test.har', [ENV_KEY]);
    const text = JSON.stringify(exchange);
    for (const secret of [KEY, ENV_KEY, 'COOKIE-SECRET', 'hunter2'])
      expect(text, secret).not.toContain(secret);
    expect(exchange!.request.path).toBe('/v1/messages?key=[redacted]');
    expect(exchange!.request.headers).toMatchObject({ 'x-api-key': '[redacted]', cookie: '[redacted]' });
    expect(validateFixture(exchange!).ok).toBe(true);
  });
});

interface Recorder {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** `wirecheck record messages` as a real process (what a kill hits). */
async function startRecorder(upstream: string, out: string): Promise<Recorder> {
  const child = spawn(process.execPath, [BIN, 'record', 'messages', '--upstream', upstream, '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ANTHROPIC_API_KEY: ENV_KEY },
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  });
  const line = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  return { child, url: String(line.value).trim(), stderr: () => stderr, exited };
}

/** An upstream that streams a frame every 10 ms until the connection goes. */
async function endlessUpstream(): Promise<string> {
  return listen((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const timer = setInterval(() => res.write(`event: ping\ndata: {"type":"ping","n":${n++}}\n\n`), 10);
    res.on('close', () => clearInterval(timer));
  });
}

/** POST a stream through the recorder and resolve once `frames` chunks came back (the request stays open). */
function streamThrough(
  url: string,
  frames: number,
): Promise<{ received: () => number; destroy: () => void }> {
  return new Promise((ok, fail) => {
    let received = 0;
    const req = request(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    });
    req.on('error', () => {});
    req.on('response', (res) => {
      res.on('error', () => {});
      res.on('data', () => {
        received++;
        if (received === frames) ok({ received: () => received, destroy: () => req.destroy() });
      });
    });
    setTimeout(() => fail(new Error(`fewer than ${frames} chunks within 10 s`)), 10_000).unref();
    req.end(JSON.stringify(sseRequest));
  });
}

describe('record messages: a recorder stopped mid-stream leaves the exchange so far', () => {
  test('SIGKILL: a .partial file, valid so far by construction, read back as the exchange marked truncated and replayed', async () => {
    const out = await tempDir();
    const recorder = await startRecorder(await endlessUpstream(), out);
    const client = await streamThrough(recorder.url, 8);
    cleanup.push(() => client.destroy());
    // The file lags the client by at most the chunk the scrubber holds back and what the disk has not taken.
    await new Promise((r) => setTimeout(r, 100));
    recorder.child.kill('SIGKILL');
    await recorder.exited;
    const files = await readdir(out);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-0001\.json\.partial$/);
    const exchange = (await readFixtureFile(join(out, files[0]!))) as MessagesExchange;
    expect(exchange.truncated).toBe(true);
    expect(exchange.response.end).toBe('truncated');
    expect(exchange.response.status).toBe(200);
    expect(exchange.response.chunks.length).toBeGreaterThanOrEqual(6);
    expect(Buffer.concat(exchange.response.chunks.map(bytesOfChunk)).toString()).toMatch(
      /^(event: ping\ndata: \{"type":"ping","n":\d+\}\n\n)+$/,
    );
    expect(JSON.stringify(exchange)).not.toContain(KEY);
    expect(validateFixture(exchange).ok).toBe(true);
    // A replay serves what was recorded, then cuts the stream as the client saw it cut.
    const [loaded] = await loadRecordings([out]);
    const replay = await startMockMessagesService({ scenario: recordingScenario([loaded!], { speed: 0 }) });
    cleanup.push(() => replay.close());
    const replayed = await postRaw(replay.url, sseRequest);
    expect(replayed.end).toBe('cut');
    expect(Buffer.concat(replayed.chunks.map((c) => c.bytes))).toEqual(
      Buffer.concat(exchange.response.chunks.map(bytesOfChunk)),
    );
  }, 30_000);

  test('SIGTERM: the open exchange is written with the chunks so far under its final name, marked truncated', async () => {
    const out = await tempDir();
    const recorder = await startRecorder(await endlessUpstream(), out);
    const client = await streamThrough(recorder.url, 5);
    cleanup.push(() => client.destroy());
    recorder.child.kill('SIGTERM');
    expect(await recorder.exited).toBe(0);
    const files = await readdir(out);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-0001\.json$/);
    const exchange = (await readFixtureFile(join(out, files[0]!))) as MessagesExchange;
    expect(exchange).toMatchObject({ truncated: true, response: { status: 200, end: 'truncated' } });
    expect(exchange.response.chunks.length).toBeGreaterThanOrEqual(5);
    expect(recorder.stderr()).toMatch(/recording stopped mid-stream \(marked truncated\)/);
  }, 30_000);
});

describe('replay of a directory: every valid file, the bad ones named', () => {
  test('a cut file and a foreign file are left out with a warning naming them; the rest is served', async () => {
    const out = await tempDir();
    const mock = await startMockMessagesService();
    cleanup.push(() => mock.close());
    const proxy = await startRecordingProxy({ upstream: mock.url, outDir: out });
    await postRaw(proxy.url, sseRequest);
    await postRaw(proxy.url, { ...sseRequest, stream: false });
    await proxy.close();
    const [good] = await readdir(out);
    const text = await readFile(join(out, good!), 'utf8');
    await writeFile(join(out, 'cut-by-a-kill.json'), text.slice(0, text.length / 2));
    await writeFile(join(out, 'not-a-fixture.json'), '{"hello": "world"}');
    const skipped: string[] = [];
    const loaded = await loadRecordings([out], ({ file, problem }) => skipped.push(`${file}: ${problem}`));
    expect(loaded).toHaveLength(2);
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatch(/cut-by-a-kill\.json: not valid JSON/);
    expect(skipped[1]).toMatch(/not-a-fixture\.json: format: expected "wirecheck-fixture"/);
    await expect(loadRecordings([join(out, 'not-a-fixture.json')])).rejects.toThrow(/not-a-fixture\.json/);
    const empty = await tempDir();
    await writeFile(join(empty, 'x.json'), '{');
    await expect(loadRecordings([empty])).rejects.toThrow(
      /nothing to replay: none of its 1 files is a valid recording/,
    );
  });
});

describe('record messages: memory stays bounded while a long stream is recorded', () => {
  test('60 MB streamed through the recorder (a real process) raises its peak RSS by less than 50 MB', async () => {
    const MB = 1024 * 1024;
    const frame = Buffer.from(
      `data: ${JSON.stringify({ type: 'content_block_delta', text: 'x'.repeat(60 * 1024) })}\n\n`,
    );
    let total = 0;
    const upstream = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += frame.length;
          if (!res.write(frame)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const out = await tempDir();
    const recorder = await startRecorder(upstream, out);
    const status = () => readFile(`/proc/${recorder.child.pid}/status`, 'utf8');
    const kb = (text: string, field: string) =>
      Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1]) * 1024;
    const send = () =>
      new Promise<number>((ok, fail) => {
        let n = 0;
        const req = request(`${recorder.url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        });
        req.on('error', fail);
        req.on('response', (res) => {
          res.on('data', (b: Buffer) => (n += b.length));
          res.on('end', () => ok(n));
        });
        req.end(JSON.stringify(sseRequest));
      });
    const recorded = async (n: number) => {
      for (let i = 0; i < 200 && (recorder.stderr().match(/recorded POST/g) ?? []).length < n; i++)
        await new Promise((r) => setTimeout(r, 50));
    };
    // A first stream of 8 MB warms the recorder up: its code loaded and compiled, its heap at working size.
    total = 8 * MB;
    await send();
    await recorded(1);
    const before = kb(await status(), 'VmRSS');
    // Under the 64 MiB recording limit: the whole stream is recorded, the path this test measures.
    total = 60 * MB;
    const received = await send();
    expect(received).toBeGreaterThanOrEqual(total);
    await recorded(2);
    const peak = kb(await status(), 'VmHWM');
    recorder.child.kill('SIGTERM');
    await recorder.exited;
    // Before: the whole response was held until it ended (and the file built in memory): +260 MB.
    expect(peak - before, `RSS ${before} -> peak ${peak}`).toBeLessThan(50 * MB);
    const file = (await readdir(out)).sort()[1];
    const exchange = (await readFixtureFile(join(out, file!))) as MessagesExchange;
    expect(exchange.response.end).toBe('complete');
    expect(exchange.response.chunks.reduce((n, c) => n + bytesOfChunk(c).length, 0)).toBe(received);
  }, 60_000);
});
