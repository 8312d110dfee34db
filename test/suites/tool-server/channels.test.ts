import { afterEach, describe, expect, test } from 'vitest';
import { MAX_ANSWERS_IN_FLIGHT } from '../../../src/suites/tool-server/answer-cap.js';
import type { Channel } from '../../../src/suites/tool-server/channel.js';
import { cannotSpeakProtocol } from '../../../src/suites/tool-server/diagnosis.js';
import { exchange } from '../../../src/suites/tool-server/rpc.js';
import {
  MAX_FRAME_DATA,
  MAX_KEPT_FRAME_CHARS,
  MAX_KEPT_FRAMES,
  openSseChannel,
  type SseChannel,
} from '../../../src/suites/tool-server/sse-channel.js';
import { openStdioChannel } from '../../../src/suites/tool-server/stdio-channel.js';
import { type RunningTarget, startSseTarget, targetCommand } from '../../hostile/targets.js';

const open: Channel[] = [];
const targets: RunningTarget[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  for (const t of targets.splice(0)) await t.stop();
});

function stdio(command: string, limits = {}): Channel {
  const c = openStdioChannel(command, 'test', limits);
  open.push(c);
  return c;
}

async function until(what: string, done: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('stdio channel: a server that does not read its stdin', () => {
  // `sleep` never reads: once the pipe is full, a write waits for ever.
  test('an exchange whose request does not fit the pipe still ends at its reply budget', async () => {
    const c = stdio('sleep 30');
    const ex = await exchange(
      c,
      'tools/call',
      { name: 'echo', arguments: { pad: 'x'.repeat(256 * 1024) } },
      300,
    );
    expect(ex.reply).toBeUndefined();
    expect(ex.why).toMatch(/^no reply within 300 ms/);
  });

  test('past the bytes it may leave unread, the session ends and gone() says why', async () => {
    const c = stdio('sleep 30', { maxUnreadInputBytes: 512 * 1024 });
    for (let i = 0; i < 4; i++)
      await c.sendText(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { pad: 'y'.repeat(200_000) } }));
    expect(c.gone()).toMatch(
      /^wirecheck ended the session: the server left \d+ bytes of its input unread \(past the 524288-byte limit, MAX_UNREAD_INPUT_BYTES\)/,
    );
  });
});

describe('stdio channel: what arrived, when it is not the protocol', () => {
  test('`cat` echoes the request back: the wait ends at once and says so', async () => {
    const c = stdio('cat');
    const started = Date.now();
    const ex = await exchange(c, 'initialize', {}, 25_000);
    // Only waiting out the 25 s reply budget is the fault; a loaded machine takes seconds to
    // start a process and read its pipe.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(ex.reply).toBeUndefined();
    expect(ex.why).toContain(
      'the server echoed the request back instead of answering it: it looks like `cat`',
    );
    expect(cannotSpeakProtocol(c.diagnosis())).toContain('the server echoed the request back');
  });

  test('`yes` floods stdout with lines that are not JSON: the no-reply message quotes the first', async () => {
    const c = stdio('yes');
    const ex = await exchange(c, 'initialize', {}, 300);
    expect(ex.why).toMatch(
      /^no reply within 300 ms; stdout carried [\d,]+ lines \([\d,]+ bytes\): no JSON-RPC message, [\d,]+ not JSON \(the first: "y"/,
    );
    expect(cannotSpeakProtocol(c.diagnosis())).toBeDefined();
  });

  test('a server that prints a line and exits: the exit and the line are both named', async () => {
    const c = stdio("printf 'Listening on :8000\\n'");
    const ex = await exchange(c, 'initialize', {}, 5000);
    expect(ex.why).toMatch(
      /^the server process exited with code 0; stdout carried 1 line .* not JSON \(the first: "Listening on :8000"/,
    );
  });

  test('JSON that is not JSON-RPC is told apart from text that is not JSON', async () => {
    const c = stdio(`printf '{"hello":1}\\n'; sleep 5`);
    await until('the line', () => c.diagnosis().units === 1);
    expect(c.diagnosis().problems).toEqual([
      expect.objectContaining({ kind: 'not-jsonrpc', first: '{"hello":1}' }),
    ]);
  });

  test('a line past maxLineBytes ends the session: the process is stopped and gone() names the limit', async () => {
    const c = stdio(targetCommand('endless-line', '--transport', 'stdio'), { maxLineBytes: 1024 * 1024 });
    const ex = await exchange(c, 'initialize', {}, 10_000);
    expect(ex.why).toContain(
      'wirecheck stopped reading and ended the session: line 1 of stdout is longer than the 1048576-byte limit (maxLineBytes)',
    );
    expect(c.gone()).toBe(ex.why);
    expect(c.diagnosis().fatal).toMatchObject({ kind: 'over-limit' });
    await until(
      'the process to be stopped',
      () => (c as ReturnType<typeof openStdioChannel>).process.exit() !== undefined,
    );
  });

  test('a reply nested past maxDepth is not parsed, and the no-reply message names the limit', async () => {
    const c = stdio(targetCommand('deep-nesting', '--transport', 'stdio', '--depth', '600'));
    // The budget covers starting node: 1 s was too short on a loaded machine (nothing had arrived).
    const ex = await exchange(c, 'initialize', {}, 10_000);
    expect(ex.why).toContain('JSON nested too deep to read');
    expect(ex.why).toContain('512-level limit (maxDepth)');
  });
});

describe('SSE channel: bounded', () => {
  test('a frame past maxFrameLength closes the stream, and gone() names the limit', async () => {
    const t = await startSseTarget('endless-frame');
    targets.push(t);
    const c = await openSseChannel(t.url, {
      label: 'test',
      timeoutMs: 2000,
      postTimeoutMs: 2000,
      limits: { maxFrameLength: 1024 * 1024 },
    });
    open.push(c);
    await c.firstEvent(2000);
    const ex = await exchange(c, 'initialize', {}, 10_000);
    expect(ex.why).toContain(
      'wirecheck closed the stream: an SSE frame longer than the 1048576-character limit (maxFrameLength)',
    );
    expect(c.diagnosis().fatal?.kind).toBe('over-limit');
  });

  /** Opens a channel to a server that writes `body` on its stream and keeps it open, then runs `use`. */
  async function onStream(body: string, use: (c: SseChannel) => Promise<void>): Promise<void> {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const c = await openSseChannel(`http://127.0.0.1:${port}/sse`, {
        label: 'test',
        timeoutMs: 2000,
        postTimeoutMs: 2000,
      });
      open.push(c);
      await use(c);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }
  const ENDPOINT = 'event: endpoint\ndata: /messages?sessionId=1\n\n';

  test('a flood of comments is counted, and no more than MAX_KEPT_FRAMES are kept', async () => {
    const body = `${ENDPOINT}${': keep-alive\n\n'.repeat(MAX_KEPT_FRAMES * 2)}`;
    await onStream(body, async (c) => {
      await until('the flood', () => c.diagnosis().bytes === body.length);
      expect(c.frames).toHaveLength(MAX_KEPT_FRAMES);
    });
  });

  test('frame data is kept whole up to MAX_KEPT_FRAME_CHARS in all, then as a preview', async () => {
    const data = 'y'.repeat(MAX_FRAME_DATA);
    const count = Math.ceil(MAX_KEPT_FRAME_CHARS / MAX_FRAME_DATA) + 50;
    const body = `${ENDPOINT}${`event: note\ndata: ${data}\n\n`.repeat(count)}`;
    await onStream(body, async (c) => {
      await until('the frames', () => c.frames.length === count + 1, 20_000);
      const kept = c.frames.reduce((n, f) => n + f.data.length, 0);
      expect(kept).toBeLessThanOrEqual(MAX_KEPT_FRAME_CHARS + 50 * 300);
      expect(c.frames[1]?.data).toBe(data);
      expect(c.frames[count]?.data).toBe(`${'y'.repeat(200)}... (${MAX_FRAME_DATA} characters)`);
    });
  });

  test('close(): gone() says so from the call on, before the close settles (IdleStream.letGo counts on it)', async () => {
    await onStream(ENDPOINT, async (c) => {
      await c.firstEvent(2000);
      expect(c.gone()).toBeUndefined();
      const closing = c.close();
      expect(c.gone()).toBe('the harness closed the stream');
      await closing;
    });
  });
});

// Each answer to a server's own request is a POST the harness holds until it is answered: a
// server that floods requests and never answers those POSTs must not hold memory or sockets.
test("answers to the server's requests: at most MAX_ANSWERS_IN_FLIGHT POSTs at once; past them requests go unanswered", async () => {
  const { createServer } = await import('node:http');
  const held: import('node:http').ServerResponse[] = [];
  const requests = 100;
  const server = createServer((req, res) => {
    if (req.method === 'POST') {
      req.resume();
      held.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: endpoint\ndata: /messages?sessionId=1\n\n');
    for (let id = 1; id <= requests; id++) {
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n\n`);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as { port: number }).port;
    const c = await openSseChannel(`http://127.0.0.1:${port}/sse`, {
      label: 'test',
      timeoutMs: 2000,
      postTimeoutMs: 10_000,
    });
    open.push(c);
    await until('the requests', () => held.length >= MAX_ANSWERS_IN_FLIGHT, 15_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(held.length).toBe(MAX_ANSWERS_IN_FLIGHT);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}, 30_000);
