import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ToolClient, ToolServerError } from '../../../src/clients/tools/index.js';
import { BUNDLED_LIBRARY_DIR, type ToolSession } from '../../../src/fixtures/index.js';
import {
  mockToolServerCommand,
  ReplayToolSession,
  startMockToolServer,
  ToolJournal,
  toolReplayPlanOf,
  toolScenario,
} from '../../../src/mocks/tools/index.js';
import { startSseRecordingProxy } from '../../../src/recording/tools/index.js';
import { startToolServer } from '../../../src/servers/tools/index.js';
import { ChildProcessTransport, SseClientTransport } from '../../../src/transports/index.js';
import { libraryToolSessions } from '../../fixtures/library-tool-sessions.js';

const [stdioSession, sseSession] = libraryToolSessions().map((t) => t.fixture) as [ToolSession, ToolSession];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** A replay session on a fake SSE channel: every write as it was made. */
function fakeReplay(session: ToolSession, faults = {}) {
  const writes: string[] = [];
  const replay = new ReplayToolSession(
    toolReplayPlanOf(session),
    toolScenario({ faults }),
    new ToolJournal(),
    {
      session: 's',
      transport: 'sse',
      write: (text) => writes.push(`event: message\ndata: ${text}\n\n`),
      writeRaw: (bytes) => writes.push(Buffer.from(bytes).toString()),
      close: () => writes.push('(closed)'),
    },
    { speed: 0 },
  );
  replay.start();
  return { writes, replay };
}

describe('mock tool servers replay a recorded session', () => {
  test('the recorded reply answers the matching request, with the live id in place of the recorded one', async () => {
    const { writes, replay } = fakeReplay(sseSession);
    replay.receive(initialize(41));
    await replay.drain();
    expect(writes).toHaveLength(1);
    expect(JSON.parse(writes[0]!.split('data: ')[1]!)).toMatchObject({
      id: 41,
      result: { serverInfo: { name: 'example-reports' } },
    });
    replay.dispose();
  });

  test('SSE chunk boundaries and keep-alive comments are kept (speed max)', async () => {
    const { writes, replay } = fakeReplay(sseSession);
    replay.receive(initialize(1));
    replay.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
    replay.receive({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    replay.receive({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'build_report', arguments: { path: '/srv/app' } },
    });
    await replay.drain();
    const recorded = sseSession.stream!.chunks.slice(1).map((c) => ('text' in c ? c.text : ''));
    // Same writes as the recorded chunks, ids 0,1,2 replaced by 1,2,3 (same lengths).
    const live = writes.map((w) =>
      w.replace('"id":1,', '"id":0,').replace('"id":2,', '"id":1,').replace('"id":3,', '"id":2,'),
    );
    expect(live).toEqual(recorded);
    expect(writes.filter((w) => w === ': keep-alive\n\n')).toHaveLength(3);
    replay.dispose();
  });

  test('a message the recorder cut is replayed as the start it kept, a line that is no message, even when that start parses', () => {
    const index = stdioSession.messages.findIndex((m) => m.direction === 'server->client');
    const cut: ToolSession = {
      ...stdioSession,
      messages: stdioSession.messages.map((m, i) =>
        i === index ? { ...m, text: '{"jsonrpc":"2.0","id":0,"result":{}}', cut: true as const } : m,
      ),
    };
    const [first] = toolReplayPlanOf(cut).steps;
    expect(first).toMatchObject({ kind: 'raw' });
    expect(Buffer.concat(first!.parts.map((p) => p.bytes)).toString()).toBe(
      '{"jsonrpc":"2.0","id":0,"result":{}}\n',
    );
    expect(toolReplayPlanOf(stdioSession).steps[0]).toMatchObject({ kind: 'message' });
  });

  // Writing it again with the live id would recurse past the stack (a hostile server's answer, recorded).
  test('a recorded reply nested deeper than any reader reads is replayed as its recorded bytes', () => {
    const index = stdioSession.messages.findIndex((m) => m.direction === 'server->client');
    const recorded = JSON.parse(stdioSession.messages[index]!.text) as { id: unknown };
    const deep = `{"jsonrpc":"2.0","id":${JSON.stringify(recorded.id)},"result":{"d":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const session: ToolSession = {
      ...stdioSession,
      messages: stdioSession.messages.map((m, i) => (i === index ? { ...m, text: deep } : m)),
    };
    const [first] = toolReplayPlanOf(session).steps;
    expect(first).toMatchObject({ kind: 'raw' });
    expect(Buffer.concat(first!.parts.map((p) => p.bytes)).toString()).toBe(`${deep}\n`);
  });

  test('a request the recording cannot answer gets an error naming it; a ping gets {}', async () => {
    const { writes, replay } = fakeReplay(sseSession);
    replay.receive({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope' } });
    replay.receive({ jsonrpc: '2.0', id: 6, method: 'ping' });
    await replay.drain();
    expect(writes.map((w) => JSON.parse(w.split('data: ')[1]!))).toEqual([
      {
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: -32603,
          message: 'wirecheck replay: the recording has no tools/call nope request left to answer',
        },
      },
      { jsonrpc: '2.0', id: 6, result: {} },
    ]);
    replay.dispose();
  });

  test('a client that skips a recorded request (tools/call with no tools/list first) is answered; the skipped reply goes out if its request comes later', async () => {
    const { writes, replay } = fakeReplay(stdioSession);
    const answered = () => writes.map((w) => JSON.parse(w.split('data: ')[1]!) as { id?: unknown });
    replay.receive(initialize(41));
    replay.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await replay.drain();
    replay.receive({
      jsonrpc: '2.0',
      id: 43,
      method: 'tools/call',
      params: { name: 'diagnostic', arguments: { verbose: false } },
    });
    await replay.drain();
    expect(answered().find((m) => m.id === 43)).toMatchObject({ result: { content: [{ type: 'text' }] } });
    replay.receive({ jsonrpc: '2.0', id: 44, method: 'tools/list' });
    await replay.drain();
    expect(answered().find((m) => m.id === 44)).toMatchObject({
      result: { tools: [{ name: 'diagnostic' }] },
    });
    expect(answered().map((m) => m.id)).toEqual([41, undefined, 43, 44]);
    replay.dispose();
  });

  test('SSE: the reference client gets the recorded results, ids remapped, the reply after the recorded delay over the speed', async () => {
    const mock = await startMockToolServer({}, { replay: sseSession, speed: 4 });
    const client = new ToolClient(new SseClientTransport(mock.url));
    try {
      await client.connect();
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['build_report', 'diagnostic']);
      const started = performance.now();
      const report = await client.callTool('build_report', { path: '/srv/app' });
      const took = performance.now() - started;
      expect(JSON.stringify(report)).toContain('module 60: ok');
      // Recorded: 2380.8 ms from the request to the end of the reply; at speed 4, 595 ms. Timers
      // never fire early by more than a few ms, so the first bound holds; load only makes a replay
      // later, so the second is the recorded time itself: a replay at speed 1 cannot come under it.
      expect(took).toBeGreaterThanOrEqual(595 - 10);
      expect(took).toBeLessThan(2380 - 10);
    } finally {
      await client.close();
      await mock.close();
    }
    const sent = mock.journal().filter((e) => e.direction === 'sent' && e.kind === 'message');
    expect(sent.map((e) => (e.value as { id?: unknown }).id)).toEqual([1, 2, 9001, 3]);
    // The server's ping was answered by the client.
    expect(
      mock.journal().some((e) => e.direction === 'received' && (e.value as { id?: unknown })?.id === 9001),
    ).toBe(true);
  }, 20_000);

  test('faults layer on a replay: replyDelayMs delays every recorded reply', async () => {
    const { writes, replay } = fakeReplay(stdioSession, { replyDelayMs: 150 });
    const started = performance.now();
    replay.receive(initialize(1));
    await replay.drain();
    expect(performance.now() - started).toBeGreaterThanOrEqual(150 - 10);
    expect(writes).toHaveLength(1);
    replay.dispose();
  });

  // `direct` loads the replay's modules only when asked for one: this proves it still does.
  test.each(['cli', 'direct'] as const)(
    'stdio (%s launcher, --replay, speed max): recorded results, a notification, the recorded error',
    async (launcher) => {
      const replayFile = resolve(BUNDLED_LIBRARY_DIR, 'tool-sessions/stdio.json');
      const command = mockToolServerCommand({ launcher, replayFile, speed: 'max' });
      const notifications: string[] = [];
      const client = new ToolClient(new ChildProcessTransport(command), {
        onNotification: (n) => notifications.push(n.method),
      });
      try {
        const init = await client.connect();
        expect(init.serverInfo).toEqual({ name: 'example-diagnostics', version: '0.9.2' });
        await client.listTools();
        const result = await client.callTool('diagnostic', { verbose: false });
        expect(result.content[0]).toMatchObject({
          type: 'text',
          text: expect.stringMatching(/^status: ok\n/),
        });
        const failure = await client.callTool('restart_service', {}).catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(ToolServerError);
        expect((failure as ToolServerError).message).toMatch(/-32602: Unknown tool: restart_service/);
      } finally {
        await client.close();
      }
      expect(notifications).toEqual(['notifications/message']);
    },
    20_000,
  );

  test('stdio, direct launcher: a --speed that is no speed is refused with exit 2 (no replay asked for)', () => {
    const run = spawnSync('sh', ['-c', `${mockToolServerCommand({ launcher: 'direct' })} --speed fast`], {
      input: '',
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--speed takes a number above 0 or max, got fast/);
  });

  test('a stdio recording served over SSE: the messages in SSE framing, the recorded results', async () => {
    const mock = await startMockToolServer({}, { replay: stdioSession, speed: 0 });
    const client = new ToolClient(new SseClientTransport(mock.url));
    try {
      await client.connect();
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['diagnostic']);
      const result = await client.callTool('diagnostic', { verbose: false });
      expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/^status: ok\n/) });
    } finally {
      await client.close();
      await mock.close();
    }
  }, 20_000);

  test('round trip: a session recorded by the SSE proxy replays to the reference client with the same results', async () => {
    const server = await startToolServer({ keepAliveMs: 25 });
    const proxy = await startSseRecordingProxy({ upstream: server.url });
    const first = new ToolClient(new SseClientTransport(proxy.url));
    let recordedEcho: unknown;
    try {
      await first.connect();
      recordedEcho = await first.callTool('echo', { text: 'twice' });
      await sleep(60);
    } finally {
      await first.close();
      await proxy.settled();
      await proxy.close();
      await server.close();
    }
    const [recording] = proxy.sessions;
    const mock = await startMockToolServer({}, { replay: recording!, speed: 1 });
    const second = new ToolClient(new SseClientTransport(mock.url));
    try {
      await second.connect();
      expect(await second.callTool('echo', { text: 'twice' })).toEqual(recordedEcho);
    } finally {
      await second.close();
      await mock.close();
    }
  }, 20_000);
});

describe('serve mock-tools --replay DIR', () => {
  test('loads every valid tool session of a directory in name order and names the bad files', async () => {
    const { loadToolReplays } = await import('../../../src/mocks/tools/index.js');
    const { mkdtemp, rm, writeFile, readFile: read } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { BUNDLED_LIBRARY_DIR } = await import('../../../src/fixtures/index.js');
    const dir = await mkdtemp(join(tmpdir(), 'wc-tool-replays-'));
    try {
      const good = await read(join(BUNDLED_LIBRARY_DIR, 'tool-sessions', 'stdio.json'), 'utf8');
      await writeFile(join(dir, 'a.json'), good);
      await writeFile(join(dir, 'b.json'), good.slice(0, 100));
      await writeFile(join(dir, 'c.json'), good);
      const skipped: string[] = [];
      const sessions = await loadToolReplays(dir, ({ file, problem }) => skipped.push(`${file}: ${problem}`));
      expect(sessions).toHaveLength(2);
      expect(skipped).toEqual([expect.stringMatching(/b\.json: not valid JSON/)]);
      await expect(loadToolReplays(join(dir, 'b.json'))).rejects.toThrow(/b\.json/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
