import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFixtureFile, type ToolSession } from '../../../src/fixtures/index.js';
import {
  startSseRecordingProxy,
  startStreamableHttpRecordingProxy,
} from '../../../src/recording/tools/index.js';

// A server that compresses although the recorder asked for `identity`: the session file must
// hold what the server said (decoded, so readable and scrubbed), the client what it sent.

const TOKEN = 'tok-7f3a9c1e5b2d8f4a6c0e';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let dir: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-tools-compressed-'));
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const b of req) parts.push(b as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** The one session file written to `out`: its text and the session read back. */
async function onlySession(out: string) {
  const files = (await readdir(out)).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  const file = join(out, files[0]!);
  return { text: await readFile(file, 'utf8'), session: (await readFixtureFile(file)) as ToolSession };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request(url, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end(body);
  });
}

const echo = (id: number, text: string) => JSON.stringify({ jsonrpc: '2.0', id, result: { echoed: text } });

describe('record tools --sse: a server that gzips anyway', () => {
  test('the gzipped stream and POST answer are recorded decoded, the echoed token scrubbed; the client gets the gzip', async () => {
    const out = join(dir, 'sse-gzip');
    let stream: ReturnType<typeof createGzip> | undefined;
    const sent: Buffer[] = [];
    const upstream = await listen(async (req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
        stream = createGzip();
        stream.on('data', (b: Buffer) => {
          sent.push(b);
          res.write(b);
        });
        stream.on('end', () => res.end());
        stream.write('event: endpoint\ndata: /messages?sessionId=s-gz\n\n');
        stream.flush();
        return;
      }
      const text = await bodyOf(req);
      // The server echoes the client's credential, in the stream and in its POST answer.
      stream!.write(`event: message\ndata: ${echo(1, `${req.headers.authorization} ${text.length}`)}\n\n`);
      stream!.flush(() => stream!.end());
      res.writeHead(202, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync(`Accepted for ${req.headers.authorization}`));
    });
    const proxy = await startSseRecordingProxy({ upstream: `${upstream}/sse`, outDir: out });
    let got: Buffer;
    let posted: Answer;
    try {
      let post: Promise<Answer> | undefined;
      const streamDone = new Promise<Buffer>((resolve, reject) => {
        request(proxy.url, { headers: AUTH }, (res) => {
          const parts: Buffer[] = [];
          let postedOnce = false;
          res.on('data', (b: Buffer) => {
            parts.push(b);
            if (postedOnce) return;
            postedOnce = true;
            const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
            post = send(`${new URL(proxy.url).origin}/messages?sessionId=s-gz`, 'POST', AUTH, call);
          });
          res.on('end', () => resolve(Buffer.concat(parts)));
        })
          .on('error', reject)
          .end();
      });
      got = await streamDone;
      // The stream may end before the POST's answer is in: the server ends it on the POST.
      posted = await post!;
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    // The client got the server's bytes unchanged.
    expect(got.equals(Buffer.concat(sent))).toBe(true);
    expect(gunzipSync(posted!.body).toString()).toBe(`Accepted for Bearer ${TOKEN}`);
    const { text, session } = await onlySession(out);
    expect(text).not.toContain(TOKEN);
    expect(session.truncated).toBeUndefined();
    expect(session.stream?.end).toBe('complete');
    expect(session.stream?.headers['content-encoding']).toBeUndefined();
    expect(session.stream?.endpoint).toBe('/messages?sessionId=s-gz');
    const streamText = session.stream!.chunks.map((c) => ('text' in c ? c.text : '')).join('');
    expect(streamText).toContain('event: endpoint\ndata: /messages?sessionId=s-gz\n\n');
    const [call, reply] = session.messages;
    expect(call?.direction).toBe('client->server');
    expect(call?.post?.status).toBe(202);
    expect(call?.post?.body).toMatch(/^Accepted for \[redacted/);
    expect(reply?.direction).toBe('server->client');
    expect(JSON.parse(reply!.text)).toMatchObject({
      id: 1,
      result: { echoed: expect.stringMatching(/^\[redacted/) },
    });
  });

  test('a stream in a coding the recorder does not decode: relayed, not recorded, the session marked naming why', async () => {
    const out = join(dir, 'sse-zstd');
    const payload = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5, 6, 7, 8]);
    // The stream stays open until the client has its bytes: they are not held for a frame.
    let delivered!: () => void;
    const clientHasIt = new Promise<void>((r) => (delivered = r));
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'zstd' });
      res.write(payload);
      void clientHasIt.then(() => res.end());
    });
    const whys: (string | undefined)[] = [];
    const proxy = await startSseRecordingProxy({
      upstream: `${upstream}/sse`,
      outDir: out,
      onSession: (_s, _f, why) => whys.push(why),
    });
    const got: Buffer[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        request(proxy.url, { headers: AUTH }, (res) => {
          expect(res.headers['content-encoding']).toBe('zstd');
          res.on('data', (b: Buffer) => {
            got.push(b);
            if (Buffer.concat(got).length === payload.length) delivered();
          });
          res.on('end', resolve);
        })
          .on('error', reject)
          .end();
      });
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    expect(Buffer.concat(got).equals(payload)).toBe(true);
    const { session } = await onlySession(out);
    expect(session.truncated).toBe(true);
    expect(session.unrecordedBytes).toBe(payload.length);
    expect(session.stream?.chunks).toEqual([]);
    expect(session.stream?.end).toBe('truncated');
    expect(whys).toHaveLength(1);
    expect(whys[0]).toMatch(/Content-Encoding: zstd.*does not decode "zstd".*not recorded/);
  });

  test('a gzip bomb on the stream: the recording stops at the limit with bounded memory, the client gets every byte', async () => {
    const out = join(dir, 'sse-bomb');
    const limit = 1024 * 1024;
    // 256 MiB of one letter in one event, a few hundred KB gzipped: gzip members concatenated
    // are one gzip body, so one MiB compressed once stands for all of it.
    const mib = gzipSync(Buffer.alloc(1024 * 1024, 'a'), { level: 9 });
    const bomb = Buffer.concat([
      gzipSync('event: endpoint\ndata: /messages?sessionId=bomb\n\nevent: message\ndata: '),
      ...Array.from({ length: 256 }, () => mib),
    ]);
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const whys: (string | undefined)[] = [];
    const proxy = await startSseRecordingProxy({
      upstream: `${upstream}/sse`,
      outDir: out,
      recordLimit: limit,
      onSession: (_s, _f, why) => whys.push(why),
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    let got: Answer;
    try {
      got = await send(proxy.url, 'GET', {});
      await proxy.settled();
    } finally {
      clearInterval(sampler);
      await proxy.close();
    }
    expect(got.body.equals(bomb)).toBe(true);
    expect(peak - before).toBeLessThan(96 * 1024 * 1024);
    const { text, session } = await onlySession(out);
    expect(session.truncated).toBe(true);
    expect(session.unrecordedBytes).toBeGreaterThan(0);
    expect(session.stream?.end).toBe('truncated');
    expect(Buffer.byteLength(text)).toBeLessThan(2 * limit);
    expect(whys[0]).toMatch(/recording limit/);
  }, 20_000);
});

describe('record tools --http: a server that gzips its POST answers anyway', () => {
  test('a gzipped JSON answer and a gzipped event-stream answer are recorded decoded, the echoed token scrubbed', async () => {
    const out = join(dir, 'http-gzip');
    const sent: Buffer[] = [];
    const upstream = await listen(async (req, res) => {
      const text = await bodyOf(req);
      if (req.method === 'DELETE') {
        res.writeHead(200).end();
        return;
      }
      const { id, method } = JSON.parse(text) as { id: number; method: string };
      if (method === 'initialize') {
        const body = gzipSync(echo(id, req.headers.authorization!));
        sent.push(body);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': body.length,
          'mcp-session-id': 'h-gz',
        });
        res.end(body);
        return;
      }
      const body = gzipSync(`event: message\ndata: ${echo(id, req.headers.authorization!)}\n\n`);
      sent.push(body);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(body);
    });
    const proxy = await startStreamableHttpRecordingProxy({ upstream: `${upstream}/mcp`, outDir: out });
    const headers = {
      ...AUTH,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const answers: Answer[] = [];
    try {
      answers.push(
        await send(
          proxy.url,
          'POST',
          headers,
          JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize' }),
        ),
      );
      const inSession = { ...headers, 'mcp-session-id': 'h-gz' };
      answers.push(
        await send(
          proxy.url,
          'POST',
          inSession,
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' }),
        ),
      );
      await send(proxy.url, 'DELETE', inSession);
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    expect(answers.map((a) => a.body)).toEqual(sent);
    const { text, session } = await onlySession(out);
    expect(text).not.toContain(TOKEN);
    expect(session.truncated).toBeUndefined();
    const fromServer = session.messages.filter((m) => m.direction === 'server->client');
    expect(fromServer.map((m) => JSON.parse(m.text).id)).toEqual([0, 1]);
    for (const m of fromServer) expect(JSON.parse(m.text).result.echoed).toMatch(/^\[redacted/);
    const init = session.messages.find((m) => m.direction === 'client->server');
    expect(JSON.parse(init!.post!.body)).toMatchObject({ id: 0 });
  });

  test('an answer in a coding the recorder does not decode: relayed, its POST naming why, the session marked', async () => {
    const out = join(dir, 'http-zstd');
    const payload = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 9, 9, 9, 9]);
    const upstream = await listen(async (req, res) => {
      await bodyOf(req);
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'zstd',
        'mcp-session-id': 'h-z',
      });
      res.end(payload);
    });
    const proxy = await startStreamableHttpRecordingProxy({ upstream: `${upstream}/mcp`, outDir: out });
    let got: Answer;
    try {
      got = await send(
        proxy.url,
        'POST',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize' }),
      );
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    expect(got.body.equals(payload)).toBe(true);
    const { session } = await onlySession(out);
    expect(session.truncated).toBe(true);
    expect(session.unrecordedBytes).toBe(payload.length);
    expect(session.messages).toHaveLength(1);
    expect(session.messages[0]?.post?.status).toBe(200);
    expect(session.messages[0]?.post?.body).toMatch(/Content-Encoding: zstd.*does not decode "zstd"/);
  });
});
