import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  bodyOfChunks,
  type MessagesExchange,
  readFixtureFile,
  validateFixture,
} from '../../src/fixtures/index.js';
import {
  type MockMessagesService,
  type Reply,
  recordingScenario,
  startMockMessagesService,
} from '../../src/mocks/messages/index.js';
import { startRecordingProxy } from '../../src/recording/index.js';
import { postRaw } from './raw-client.js';
import { encodedForms, KEY, readingsWith, SLASH_KEY } from './secret-forms.js';

// "Secrets never reach a journal, a fixture or a model." The real API streams a block a few
// tokens at a time, so a key the model repeats back is always split over deltas, with SSE
// framing between the pieces: a byte search finds no piece whole, and a replay joins them.

/** Offsets every `step` characters of `text`: deltas shorter than the key. */
const every = (text: string, step: number) =>
  Array.from({ length: Math.ceil(text.length / step) - 1 }, (_, i) => (i + 1) * step);

const spoken = `Sure, with key ${KEY}' as you asked.`;
const toolInput = { api_key: KEY, note: 'echoed' };
const reply: Reply = {
  kind: 'message',
  message: {
    id: 'msg_echo',
    type: 'message',
    role: 'assistant',
    model: 'mock-model',
    content: [
      { type: 'text', text: spoken },
      { type: 'tool_use', id: 'toolu_1', name: 'save', input: toolInput },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 30 },
  },
  splits: [every(spoken, 5), every(JSON.stringify(toolInput), 4)],
};

/** The data of each event of an SSE body, parsed (throws on a frame that is not JSON). */
function eventsOf(body: string): { type: string; delta?: Record<string, string> }[] {
  return body
    .split(/\n\n/)
    .filter((f) => f.trim() !== '')
    .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)![1]!));
}

/** The text each block's deltas join to. */
function joinedDeltas(body: string): string {
  return eventsOf(body)
    .filter((e) => e.type === 'content_block_delta')
    .map((e) => Object.entries(e.delta!).find(([k]) => k !== 'type')![1])
    .join('');
}

/** Parts of the key no text of the reply holds but the key (a key cut in pieces leaves some). */
const keyParts = (key: string) => Array.from({ length: key.length - 5 }, (_, i) => key.slice(i, i + 6));

describe('record messages: a key the model repeats over several deltas is not written', () => {
  let mock: MockMessagesService;
  let dir: string;
  const replays: MockMessagesService[] = [];
  beforeAll(async () => {
    mock = await startMockMessagesService({ scenario: () => reply });
    dir = await mkdtemp(join(tmpdir(), 'wirecheck-split-key-'));
  });
  afterAll(async () => {
    await Promise.all(replays.map((r) => r.close()));
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the fixture, its deltas joined and its folded message hold no piece of the key; frames and chunks intact', async () => {
    const proxy = await startRecordingProxy({ upstream: mock.url, outDir: dir, keepExchanges: true });
    const request = {
      model: 'mock-model',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: `repeat my key ${KEY}` }],
    };
    let seen: Awaited<ReturnType<typeof postRaw>>;
    try {
      seen = await postRaw(proxy.url, request, { 'x-api-key': KEY });
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    // The client got the key, split: this is what the recording must not keep.
    const sent = Buffer.concat(seen.chunks.map((c) => c.bytes)).toString('utf8');
    expect(sent).not.toContain(KEY);
    expect(joinedDeltas(sent)).toContain(KEY);

    const [file] = await readdir(dir);
    const text = await readFile(join(dir, file!), 'utf8');
    for (const part of keyParts(KEY)) expect(text, `fixture holds "${part}"`).not.toContain(part);
    const exchange = (await readFixtureFile(join(dir, file!))) as MessagesExchange;
    expect(validateFixture(exchange).ok).toBe(true);
    const body = bodyOfChunks(exchange.response.chunks).toString('utf8');
    const joined = joinedDeltas(body);
    for (const part of keyParts(KEY)) expect(joined, `deltas join to "${part}"`).not.toContain(part);
    expect(joined).toContain('Sure, with key [redacted');

    // Replay fidelity: as many chunks, of the same sizes; as many events, each still JSON.
    expect(exchange.response.chunks.map((c) => bodyOfChunks([c]).length)).toEqual(
      seen.chunks.map((c) => c.bytes.length),
    );
    expect(eventsOf(body).map((e) => e.type)).toEqual(eventsOf(sent).map((e) => e.type));

    // A buffered replay folds the deltas into one message: the key is not in it either.
    const replay = await startMockMessagesService({ scenario: recordingScenario([exchange]) });
    replays.push(replay);
    const folded = await postRaw(replay.url, { ...request, stream: false });
    const message = Buffer.concat(folded.chunks.map((c) => c.bytes)).toString('utf8');
    expect(folded.status).toBe(200);
    const parsed = JSON.parse(message) as { content: { type: string; text?: string; input?: unknown }[] };
    expect(parsed.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    for (const part of keyParts(KEY)) expect(message, `folded message holds "${part}"`).not.toContain(part);
    expect(parsed.content[1]!.input).toMatchObject({ note: 'echoed' });
  });
});

/** An upstream answering every request with `body` as `type`. */
async function upstream(type: string, body: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An event stream with one text delta holding each of `texts` as written (JSON escapes as given). */
function streamOf(texts: readonly string[]): string {
  const frame = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;
  return [
    frame('message_start', '{"type":"message_start","message":{"id":"m","content":[]}}'),
    frame(
      'content_block_start',
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    ),
    ...texts.map((t) =>
      frame(
        'content_block_delta',
        `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t} "}}`,
      ),
    ),
    frame('content_block_stop', '{"type":"content_block_stop","index":0}'),
    frame('message_stop', '{"type":"message_stop"}'),
  ].join('');
}

describe('record messages: a key echoed encoded (base64, \\u-escaped, \\/, percent-encoded) is not written', () => {
  const forms = [...encodedForms(KEY), ...encodedForms(SLASH_KEY)];
  test.each([
    ['an event stream', 'text/event-stream', streamOf(forms)],
    ['a JSON body', 'application/json', JSON.stringify({ echoed: forms }).replaceAll('\\\\', '\\')],
  ])('%s', async (_, type, body) => {
    // The upstream writes the forms as given: escapes in them are JSON's escapes.
    for (const form of forms.filter((f) => f.includes('\\'))) expect(body).toContain(form);
    const up = await upstream(type, body);
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-encoded-key-'));
    const proxy = await startRecordingProxy({ upstream: up.url, outDir: dir });
    try {
      const seen = await postRaw(
        proxy.url,
        { model: 'm', max_tokens: 8, messages: [] },
        {
          'x-api-key': KEY,
          authorization: `Bearer ${SLASH_KEY}`,
        },
      );
      await proxy.settled();
      expect(Buffer.concat(seen.chunks.map((c) => c.bytes)).toString()).toBe(body);
      const [file] = await readdir(dir);
      const text = await readFile(join(dir, file!), 'utf8');
      for (const line of text.split('\n')) {
        expect(readingsWith(line, KEY), line).toEqual([]);
        expect(readingsWith(line, SLASH_KEY), line).toEqual([]);
      }
      const exchange = (await readFixtureFile(join(dir, file!))) as MessagesExchange;
      const recorded = bodyOfChunks(exchange.response.chunks).toString('utf8');
      expect(recorded.length).toBe(body.length);
      // Every frame still parses, and there are as many: masks replace characters, not structure.
      const types = (t: string) => eventsOf(t).map((e) => e.type);
      if (type === 'text/event-stream') expect(types(recorded)).toEqual(types(body));
      else expect(JSON.parse(recorded).echoed).toHaveLength(forms.length);
    } finally {
      await proxy.close();
      up.server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
