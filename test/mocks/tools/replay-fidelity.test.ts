import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { type ToolSession, writeFixtureFile } from '../../../src/fixtures/index.js';
import {
  mockToolServerCommand,
  ReplayToolSession,
  startStreamableHttpMockToolServer,
  ToolJournal,
  toolReplayPlanOf,
  toolScenario,
} from '../../../src/mocks/tools/index.js';
import { topLevelMemberSpans, withLiveId } from '../../../src/mocks/tools/live-id.js';
import type { SessionChannel } from '../../../src/mocks/tools/session.js';
import { libraryToolSessions } from '../../fixtures/library-tool-sessions.js';

// A replay answers with the recorded reply, the live id in place of the recorded one, and
// nothing else changed: a number past double precision, `1.50`, an escape and a repeated key
// are what the server sent (written out again from the parsed value they came out as
// 12345678901234567000, 1.5, é and one `dup`).

const [stdioSession, sseSession] = libraryToolSessions().map((t) => t.fixture) as [ToolSession, ToolSession];

/** The recorded initialize reply (id 0, as the stdio library session's initialize has it). */
const RECORDED =
  '{"jsonrpc":"2.0","id":0,"result":{"big":12345678901234567890,"f":1.50,"e":"\\u00e9","dup":1,"dup":2}}';
const expectedWith = (id: string) => RECORDED.replace('"id":0', `"id":${id}`);

/** The stdio library session with its initialize reply replaced by `reply`. */
function stdioSessionReplying(reply: string): ToolSession {
  const index = stdioSession.messages.findIndex((m) => m.direction === 'server->client');
  return {
    ...stdioSession,
    messages: stdioSession.messages.map((m, i) => (i === index ? { ...m, text: reply } : m)),
  };
}

const initialize = (id: number | string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });

/** A replay on a fake channel of `transport`: every write's bytes as they were made. */
function fakeReplay(session: ToolSession, transport: SessionChannel['transport']) {
  const writes: string[] = [];
  const channel: SessionChannel = {
    session: 's',
    transport,
    write: (text) => writes.push(transport === 'stdio' ? `${text}\n` : `event: message\ndata: ${text}\n\n`),
    ...(transport === 'stdio' && {
      writeRaw: (bytes: Uint8Array) => writes.push(Buffer.from(bytes).toString()),
    }),
    close: () => writes.push('(closed)'),
  };
  const replay = new ReplayToolSession(
    toolReplayPlanOf(session),
    toolScenario({}),
    new ToolJournal(),
    channel,
    { speed: 0 },
  );
  replay.start();
  return { writes, replay };
}

describe('withLiveId', () => {
  test('splices the live id into the recorded text and leaves every other byte', () => {
    expect(withLiveId(RECORDED, JSON.parse(RECORDED), 41)).toBe(expectedWith('41'));
    expect(withLiveId(RECORDED, JSON.parse(RECORDED), 'a"b')).toBe(expectedWith('"a\\"b"'));
  });

  test('finds the top-level id however it is spelled and wherever it stands, not a nested one', () => {
    const text = ' { "result" : { "id" : 7, "s": "}\\"id\\":0" } ,\n "\\u0069d"\t:\t"x" , "z":[{"id":1}] } ';
    const spans = topLevelMemberSpans(text, 'id');
    expect(spans?.map(([a, b]) => text.slice(a, b))).toEqual(['"x"']);
    expect(withLiveId(text, JSON.parse(text), 3)).toBe(text.replace('"x"', '3'));
  });

  test('every repeated top-level id is replaced, so a reader that keeps the first and one that keeps the last agree', () => {
    const text = '{"id":1,"result":{},"id":2}';
    expect(withLiveId(text, JSON.parse(text), 9)).toBe('{"id":9,"result":{},"id":9}');
  });

  test('a text that is not one walkable object is written again from its value with the live id', () => {
    expect(topLevelMemberSpans('[1]', 'id')).toBeUndefined();
    expect(topLevelMemberSpans('{"id":1} x', 'id')).toBeUndefined();
    expect(topLevelMemberSpans('{"result":1}', 'id')).toEqual([]);
    expect(withLiveId('{"result":1.50}', { result: 1.5 }, 4)).toBe('{"result":1.5,"id":4}');
  });

  test('a value nested deeper than the call stack is skipped, not recursed into', () => {
    const text = `{"result":${'['.repeat(200_000)}${']'.repeat(200_000)},"id":5}`;
    expect(withLiveId(text, undefined, 6)).toBe(text.replace('"id":5', '"id":6'));
  });
});

describe('a replayed reply is the recorded bytes with the live id', () => {
  test('stdio session on a stdio channel: the recorded line, id replaced', async () => {
    const { writes, replay } = fakeReplay(stdioSessionReplying(RECORDED), 'stdio');
    replay.receive(JSON.parse(initialize(41)));
    await replay.drain();
    expect(writes[0]).toBe(`${expectedWith('41')}\n`);
    replay.dispose();
  });

  test('a reply passed over and sent when its request comes late keeps its bytes too', async () => {
    const { writes, replay } = fakeReplay(stdioSessionReplying(RECORDED), 'stdio');
    // tools/list first: the initialize reply is passed over, sent when initialize comes.
    replay.receive({ jsonrpc: '2.0', id: 44, method: 'tools/list' });
    await replay.drain();
    replay.receive(JSON.parse(initialize(43)));
    await replay.drain();
    expect(writes).toContain(`${expectedWith('43')}\n`);
    replay.dispose();
  });

  test('an SSE recording whose data spans lines goes out on stdio as one line, the same message', async () => {
    const frame = 'event: message\ndata: {"jsonrpc":"2.0",\ndata:  "id":0,"result":{"f":1.50}}\n\n';
    const chunks = sseSession.stream!.chunks;
    const withFrame: ToolSession = {
      ...sseSession,
      stream: { ...sseSession.stream!, chunks: [chunks[0]!, { atMs: chunks[1]!.atMs, text: frame }] },
      messages: [
        sseSession.messages.find((m) => m.direction === 'client->server')!,
        {
          atMs: chunks[1]!.atMs,
          direction: 'server->client',
          text: '{"jsonrpc":"2.0",\n "id":0,"result":{"f":1.50}}',
        },
      ],
    };
    const { writes, replay } = fakeReplay(withFrame, 'stdio');
    replay.receive(JSON.parse(initialize(5)));
    await replay.drain();
    expect(writes[0]).toBe('{"jsonrpc":"2.0",  "id":5,"result":{"f":1.50}}\n');
    replay.dispose();
  });

  test('over stdio (serve mock-tools --replay): the recorded line, id replaced', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wc-replay-fidelity-'));
    try {
      const replayFile = join(dir, 'session.json');
      await writeFixtureFile(replayFile, stdioSessionReplying(RECORDED));
      const command = mockToolServerCommand({ launcher: 'cli', replayFile, speed: 'max' });
      const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(
          () => reject(new Error(`no reply line within 15 s; stdout so far: ${out}`)),
          15_000,
        );
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (c: string) => {
          out += c;
          if (out.includes('\n')) {
            clearTimeout(timer);
            resolve(out.slice(0, out.indexOf('\n') + 1));
          }
        });
        child.stdin.write(`${initialize(7)}\n`);
      });
      child.stdin.end();
      child.kill();
      expect(line).toBe(`${expectedWith('7')}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);

  test('over Streamable HTTP: the recorded text, id replaced', async () => {
    const mock = await startStreamableHttpMockToolServer(
      {},
      { replay: stdioSessionReplying(RECORDED), speed: 0 },
    );
    try {
      const response = await fetch(mock.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: initialize('live-1'),
      });
      const body = await response.text();
      expect(body).toContain(expectedWith('"live-1"'));
    } finally {
      await mock.close();
    }
  }, 20_000);
});
