import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { SseLimits } from '../../../src/protocol/sse/index.js';
import { describePost } from '../../../src/suites/tool-server/checks/streamable-http.js';
import { exchange } from '../../../src/suites/tool-server/rpc.js';
import {
  keptEventId,
  MAX_KEPT_EVENT_CHARS,
  MAX_KEPT_EVENTS,
  MAX_KEPT_MESSAGE_CHARS,
  MAX_KEPT_MESSAGES,
  openStreamableChannel,
  type StreamableChannel,
} from '../../../src/suites/tool-server/streamable-channel.js';

// A Streamable HTTP channel against a server of the test's own making: each POST's answer is
// what `answer` writes for the request it carried.

type Answer = (request: { id: number; method: string }, res: ServerResponse) => void;

const servers: Server[] = [];
const channels: StreamableChannel[] = [];
afterEach(async () => {
  for (const c of channels.splice(0)) await c.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(answer: Answer): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      answer({ id: message.id, method: message.method }, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

/** A channel to `url`; its SSE lines are cut at 1024 characters unless `limits` says otherwise. */
function open(url: string, limits: SseLimits = { maxLineLength: 1024 }): StreamableChannel {
  const c = openStreamableChannel(url, {
    label: 'test',
    postTimeoutMs: 2000,
    protocolVersion: '2025-03-26',
    limits,
  });
  channels.push(c);
  return c;
}

const stream = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

describe('Streamable HTTP channel: one answer cut at a limit, the session goes on', () => {
  test('the cut request says so; a later request that times out still shows what the channel received', async () => {
    const url = await serve(({ id, method }, res) => {
      stream(res);
      if (method === 'tools/list') res.write(`data: ${'x'.repeat(2000)}`);
      else if (method === 'ping') res.end(event({ jsonrpc: '2.0', id, result: {} }));
      // Anything else: the stream stays open and silent.
    });
    const c = open(url);
    const cut = await exchange(c, 'tools/list', {}, 2000);
    expect(cut.why).toMatch(
      /^wirecheck stopped reading the answer to its POST: an SSE line longer than the 1024-character limit/,
    );
    // The session is not over: the next answer is read.
    expect((await exchange(c, 'ping', {}, 2000)).reply).toMatchObject({ result: {} });
    expect(c.diagnosis().fatal).toBeUndefined();
    expect(c.gone()).toBeUndefined();
    const silent = await exchange(c, 'resources/list', {}, 200);
    expect(silent.why).toMatch(
      /^no reply within 200 ms; the POST answers carried 1 message \([\d,]+ bytes\): 1 JSON-RPC message, 1 past the size limit \(the first: "data: x+\.\.\.": an SSE line longer than the 1024-character limit/,
    );
  });
});

describe('Streamable HTTP channel: a JSON answer body is read within the answer time', () => {
  test('a body that stalls after its headers ends the exchange at the budget, saying so; the session goes on', async () => {
    const url = await serve(({ id, method }, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (method === 'tools/list') res.write('{"jsonrpc":"2.0","result":{"tools":[');
      else res.end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
      // tools/list: the rest never comes.
    });
    const c = open(url);
    const stalled = await exchange(c, 'tools/list', {}, 300);
    expect(stalled.reply).toBeUndefined();
    expect(c.posts[0]?.problem).toMatch(
      /^wirecheck cut the answer: an answer body still coming 2000 ms after the POST \(36 bytes read, starting "\{\\"jsonrpc/,
    );
    expect((await exchange(c, 'ping', {}, 2000)).reply).toMatchObject({ result: {} });
    expect(c.diagnosis().fatal).toBeUndefined();
  });

  test('bodies being read at once are bounded in bytes for the channel: the one past the bound is cut', async () => {
    const url = await serve((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","result":{"pad":"${'x'.repeat(700)}`);
    });
    const c = openStreamableChannel(url, {
      label: 'test',
      postTimeoutMs: 1000,
      protocolVersion: '2025-03-26',
      maxBufferedAnswerBytes: 1000,
    });
    channels.push(c);
    await Promise.all([exchange(c, 'tools/list', {}, 300), exchange(c, 'resources/list', {}, 300)]);
    const problems = c.posts.map((p) => p.problem ?? '');
    expect(
      problems.filter((p) =>
        /being read at once past the channel's 1000-byte limit .*; this one reached [1-9]\d* bytes/.test(p),
      ),
    ).toHaveLength(1);
    expect(problems.filter((p) => /still coming 1000 ms after the POST/.test(p))).toHaveLength(1);
  });
});

describe('Streamable HTTP channel: what a POST record keeps is bounded, what it counts is exact', () => {
  test('past MAX_KEPT_MESSAGES a response is no longer kept, yet every response to the asked request is counted', async () => {
    const flood = MAX_KEPT_MESSAGES.responses;
    const url = await serve(({ id }, res) => {
      stream(res);
      const others = Array.from({ length: flood }, (_, i) =>
        event({ jsonrpc: '2.0', id: `other-${i}`, result: {} }),
      );
      const own = event({ jsonrpc: '2.0', id, result: {} });
      res.end(`${others.join('')}${own}${own}`);
    });
    const c = open(url);
    const ex = await exchange(c, 'ping', {}, 5000);
    expect(ex.reply).toMatchObject({ id: ex.id, result: {} });
    await c.settle(5000);
    const post = c.posts[0];
    expect(post?.messages).toHaveLength(flood);
    expect(post?.dropped).toBe(2);
    // The two copies of its own response came after the cap: both counted, neither kept.
    expect(post?.responseCounts.get(ex.id)).toBe(2);
    expect(post?.responseCounts.size).toBe(1);
    // A message that quotes the record says what was read but not kept.
    expect(describePost(post)).toBe(
      `HTTP 200 text/event-stream ${flood + 2} event(s) (${MAX_KEPT_EVENTS} kept) (and 2 message(s) read but not kept)`,
    );
  });

  test('past MAX_KEPT_MESSAGE_CHARS of kept text a message is no longer kept, however few came', async () => {
    const pad = 'x'.repeat(1024 * 1024);
    const count = MAX_KEPT_MESSAGE_CHARS / pad.length + 4;
    const url = await serve(({ id }, res) => {
      stream(res);
      const big = (n: number) =>
        event({ jsonrpc: '2.0', method: 'notifications/message', params: { n, pad } });
      res.end(
        `${Array.from({ length: count }, (_, n) => big(n)).join('')}${event({ jsonrpc: '2.0', id, result: {} })}`,
      );
    });
    const c = open(url, {});
    const ex = await exchange(c, 'ping', {}, 10_000);
    expect(ex.reply).toMatchObject({ result: {} });
    await c.settle(5000);
    const post = c.posts[0];
    expect(post?.messages.length).toBeLessThan(count);
    expect((post?.messages.length ?? 0) + (post?.dropped ?? 0)).toBe(count + 1);
    expect(post?.responseCounts.get(ex.id)).toBe(1);
  });

  test('past MAX_KEPT_EVENT_CHARS for the channel an event is counted, not kept, however few came', async () => {
    const pad = 'x'.repeat(64 * 1024);
    const count = MAX_KEPT_EVENT_CHARS / pad.length + 4;
    const url = await serve(({ id }, res) => {
      stream(res);
      const noise = `event: noise\ndata: ${pad}\n\n`.repeat(count);
      res.end(`${noise}${event({ jsonrpc: '2.0', id, result: {} })}`);
    });
    const c = open(url, {});
    // Each noise event counts its data and its name; the small reply event fits in what is left.
    const noiseKept = Math.floor(MAX_KEPT_EVENT_CHARS / (pad.length + 'noise'.length));
    for (const [nth, kept] of [
      [0, noiseKept + 1],
      [1, 1],
    ] as const) {
      const ex = await exchange(c, 'ping', {}, 10_000);
      expect(ex.reply).toMatchObject({ result: {} });
      await c.settle(5000);
      const post = c.posts[nth];
      expect(post?.eventsSeen).toBe(count + 1);
      // The budget is the channel's: the first answer used it up, the second keeps its reply only.
      expect(post?.events.length).toBe(kept);
      expect(describePost(post)).toBe(`HTTP 200 text/event-stream ${count + 1} event(s) (${kept} kept)`);
    }
  });
});

describe('keptEventId', () => {
  test('an id within 256 characters is kept as it is; longer ids that differ only at their end stay apart', () => {
    expect(keptEventId('2-17')).toBe('2-17');
    const long = 'x'.repeat(300);
    expect(keptEventId(`${long}a`)).not.toBe(keptEventId(`${long}b`));
    expect(keptEventId(`${long}a`)).toBe(keptEventId(`${long}a`));
    expect(keptEventId(`${long}a`).length).toBeLessThan(200);
  });
});
