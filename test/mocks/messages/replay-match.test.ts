import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { FIXTURE_FORMAT, FIXTURE_VERSION } from '../../../src/fixtures/fixture-format.js';
import { type MessagesExchange, writeFixtureFile } from '../../../src/fixtures/index.js';
import {
  loadRecordings,
  type MockMessagesService,
  recordingScenario,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';

// `match: 'request'`: a replay answers each request with the recording made for it, so a
// client whose requests come in another order still gets the right answers, and one whose
// requests drifted from the recorded ones is told where, instead of getting some answer.

const question = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'claude-x',
  max_tokens: 64,
  messages: [{ role: 'user', content: text }],
  ...extra,
});

/** A recording of `body` answered with one JSON message saying `answer`. */
function exchange(body: unknown, answer: string, path = '/v1/messages'): MessagesExchange {
  const message = {
    id: `msg_${answer}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [{ type: 'text', text: answer }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  };
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    kind: 'messages-exchange',
    request: { method: 'POST', path, headers: { 'content-type': 'application/json' }, body },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      headersAtMs: 0,
      chunks: [{ atMs: 0, text: JSON.stringify(message) }],
      end: 'complete',
      endAtMs: 0,
    },
  };
}

let service: MockMessagesService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** The fields of a message or an error body these tests read. */
interface Answer {
  type?: string;
  content?: { text?: string }[];
  error?: { type: string; message: string };
}

async function ask(body: unknown, path = '/v1/messages'): Promise<{ status: number; json: Answer }> {
  const response = await fetch(`${service!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-client-key' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, json: (await response.json()) as Answer };
}

const textOf = (reply: { json: Answer }) => reply.json.content?.[0]?.text;

describe('replay matching the request (match: request)', () => {
  test('requests in the other order than recorded get the answers recorded for them; repeats keep being answered', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario([exchange(question('one'), 'first'), exchange(question('two'), 'second')], {
        match: 'request',
        speed: 0,
      }),
    });
    // Key order is not the recorded one: a client library may build the body differently.
    const two = { messages: [{ content: 'two', role: 'user' }], max_tokens: 64, model: 'claude-x' };
    expect(textOf(await ask(two))).toBe('second');
    expect(textOf(await ask(question('one')))).toBe('first');
    expect(textOf(await ask(question('one')))).toBe('first');
    expect(textOf(await ask(two))).toBe('second');
  });

  test('identical recorded requests are used in turn, then start over', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario(
        [exchange(question('same'), 'a'), exchange(question('other'), 'x'), exchange(question('same'), 'b')],
        { match: 'request', speed: 0 },
      ),
    });
    const answers: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) answers.push(textOf(await ask(question('same'))));
    expect(answers).toEqual(['a', 'b', 'a', 'b']);
  });

  test('a drifted request gets 400 invalid_request_error naming the nearest recording and the first difference', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-match-'));
    try {
      await writeFixtureFile(join(dir, '001-one.json'), exchange(question('one'), 'first'));
      await writeFixtureFile(
        join(dir, '002-two.json'),
        exchange(question('two', { temperature: 0.5 }), 'second'),
      );
      const unmatched: string[] = [];
      service = await startMockMessagesService({
        scenario: recordingScenario(await loadRecordings([dir]), {
          match: 'request',
          speed: 0,
          onUnmatched: (message) => unmatched.push(message),
        }),
      });
      const drifted = await ask(question('two', { temperature: 0.7 }));
      expect(drifted.status).toBe(400);
      expect(drifted.json.type).toBe('error');
      expect(drifted.json.error?.type).toBe('invalid_request_error');
      const message = drifted.json.error?.message ?? '';
      expect(message).toMatch(
        /^wirecheck replay: no recording matches this request \(POST \/v1\/messages, among 2 recordings\)/,
      );
      expect(message).toContain(`the nearest is ${join(dir, '002-two.json')} (1 difference)`);
      expect(message).toContain('first at $.temperature: recorded 0.5, arrived 0.7');
      expect(message).not.toContain('sk-ant-client-key');
      expect(unmatched).toEqual([message]);
      // The journal holds the refusal as it holds the mock's other 400s.
      const entry = service.journal.entries().at(-1)!;
      expect(entry.status).toBe(400);
      expect(entry.errorType).toBe('invalid_request_error');
      // A refused request uses up nothing: the recorded one is still answered.
      expect(textOf(await ask(question('two', { temperature: 0.5 })))).toBe('second');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a refusal shows none of the secrets the request presented, though they sit in a turn's text", async () => {
    const key = 'sk-ant-api03-SECRETSECRETSECRET0123';
    const unmatched: string[] = [];
    service = await startMockMessagesService({
      scenario: recordingScenario([exchange(question('env: KEY=[redacted] PWD=/a'), 'env')], {
        match: 'request',
        speed: 0,
        onUnmatched: (message) => unmatched.push(message),
      }),
    });
    const response = await fetch(`${service.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(question(`env: KEY=${key} PWD=/b`)),
      signal: AbortSignal.timeout(5000),
    });
    expect(response.status).toBe(400);
    const body = await response.text();
    const message = (JSON.parse(body) as Answer).error?.message ?? '';
    expect(message).toContain(
      'first at $.messages[0].content: recorded "env: KEY=[redacted] PWD=/a", arrived "env: KEY=[redacted] PWD=/b"',
    );
    expect(body).not.toContain('SECRETSECRET');
    expect(unmatched).toEqual([message]);
  });

  test('the request target is compared, the query string (the SDK beta flag) included', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario([exchange(question('one'), 'beta', '/v1/messages?beta=true')], {
        match: 'request',
        speed: 0,
      }),
    });
    expect(textOf(await ask(question('one'), '/v1/messages?beta=true'))).toBe('beta');
    const plain = await ask(question('one'));
    expect(plain.status).toBe(400);
    expect(plain.json.error?.message).toContain(
      'first at path: recorded "/v1/messages?beta=true", arrived "/v1/messages"',
    );
  });

  test('a streamed request matches a recording made without stream (the reply is converted)', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario([exchange(question('one'), 'first')], { match: 'request', speed: 0 }),
    });
    const response = await fetch(`${service.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify(question('one', { stream: true })),
      signal: AbortSignal.timeout(5000),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toContain('"text":"first"');
  });

  test('the default (order) still answers whatever arrives, in turn', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario([exchange(question('one'), 'first'), exchange(question('two'), 'second')], {
        speed: 0,
      }),
    });
    expect(textOf(await ask(question('unrelated')))).toBe('first');
    expect(textOf(await ask(question('two')))).toBe('second');
    expect(textOf(await ask(question('two')))).toBe('first');
  });

  test('an unknown match mode is refused when the scenario is made', () => {
    expect(() =>
      recordingScenario([exchange(question('one'), 'first')], { match: 'nope' as 'order' }),
    ).toThrow(/match is "order" or "request", got "nope"/);
  });
});
