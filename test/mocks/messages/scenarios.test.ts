import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  BUNDLED_FIXTURES_DIR,
  commandsOf,
  FixtureError,
  fixtureScenario,
  Journal,
  loadFixtures,
  type Reply,
  type Scenario,
  scriptedModel,
  scriptScenario,
} from '../../../src/mocks/messages/index.js';
import { accumulate, eventsOfMessage, type MessageRequest } from '../../../src/protocol/messages/index.js';

const bash = [{ type: 'bash_20250124' as const, name: 'bash' as const }];
const ctx = (requestIndex = 0, turnIndex = 0) => ({ requestIndex, turnIndex, journal: new Journal() });
const ask = (text: string, extra: Partial<MessageRequest> = {}): MessageRequest => ({
  model: 'mock-model',
  max_tokens: 1000,
  messages: [{ role: 'user', content: text }],
  ...extra,
});
async function messageOf(scenario: Scenario, request: MessageRequest, requestIndex = 0, turnIndex = 0) {
  const reply = await scenario(request, ctx(requestIndex, turnIndex));
  if (reply.kind !== 'message') throw new Error(`expected a message reply, got ${JSON.stringify(reply)}`);
  return reply;
}

describe('scriptedModel echo', () => {
  test('answers with the last user text and streams back to the same message', async () => {
    const reply = await messageOf(scriptedModel('echo'), ask('say this back to me, please'));
    expect(reply.message).toMatchObject({
      id: 'msg_mock_0000',
      model: 'mock-model',
      content: [{ type: 'text', text: 'say this back to me, please' }],
      stop_reason: 'end_turn',
    });
    expect(accumulate(eventsOfMessage(reply.message, reply.splits))).toEqual(reply.message);
    expect(
      eventsOfMessage(reply.message, reply.splits).filter((e) => e.type === 'content_block_delta').length,
    ).toBe(3);
  });

  test('stops at the first stop sequence found, naming it', async () => {
    const reply = await messageOf(
      scriptedModel('echo'),
      ask('one two STOP three', { stop_sequences: ['STOP'] }),
    );
    expect(reply.message).toMatchObject({
      content: [{ type: 'text', text: 'one two ' }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'STOP',
    });
  });

  test('is cut at max_tokens with stop_reason max_tokens', async () => {
    const reply = await messageOf(scriptedModel('echo'), ask('x'.repeat(100), { max_tokens: 3 }));
    expect(reply.message).toMatchObject({
      content: [{ type: 'text', text: 'x'.repeat(12) }],
      stop_reason: 'max_tokens',
      usage: { output_tokens: 3 },
    });
  });
});

describe('scriptedModel bash', () => {
  test('a prompt is answered with text and a bash tool_use running the text after "run:"', async () => {
    const reply = await messageOf(scriptedModel('bash'), ask('please run: ls -la /tmp', { tools: bash }), 3);
    expect(reply.message.stop_reason).toBe('tool_use');
    expect(reply.message.content).toEqual([
      { type: 'text', text: 'I will run: ls -la /tmp' },
      { type: 'tool_use', id: 'toolu_mock_0003_0', name: 'bash', input: { command: 'ls -la /tmp' } },
    ]);
  });

  test('several run: lines give several tool_use blocks; no run: echoes the prompt, shell-quoted', () => {
    expect(commandsOf('run: pwd\nand then run: whoami')).toEqual(['pwd', 'whoami']);
    expect(commandsOf("it's fine")).toEqual([`echo 'it'\\''s fine'`]);
  });

  test('tool results are answered with a summary and end_turn', async () => {
    const request = ask('run: ls', { tools: bash });
    request.messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt\nb.txt\n', is_error: false }],
      },
    );
    const reply = await messageOf(scriptedModel('bash'), request, 1, 1);
    expect(reply.message.stop_reason).toBe('end_turn');
    expect(reply.message.content).toEqual([{ type: 'text', text: 'Tool results:\nt1: ok: a.txt b.txt' }]);
  });

  test('without a bash tool offered it only answers with text', async () => {
    const reply = await messageOf(scriptedModel('bash'), ask('run: ls'));
    expect(reply.message.content.map((b) => b.type)).toEqual(['text']);
  });
});

describe('scriptScenario', () => {
  test('serves the replies in order, then a 500 api_error saying the script is exhausted', async () => {
    const replies: Reply[] = [
      { kind: 'error', status: 529 },
      { kind: 'error', status: 429 },
    ];
    const scenario = scriptScenario(replies);
    expect(await scenario(ask('a'), ctx())).toBe(replies[0]);
    expect(await scenario(ask('a'), ctx())).toBe(replies[1]);
    const third = await scenario(ask('a'), ctx(2));
    expect(third).toMatchObject({ kind: 'error', status: 500, errorType: 'api_error' });
    expect(third.kind === 'error' && third.message).toMatch(
      /^script exhausted: all 2 scripted replies were served/,
    );
  });
});

describe('fixtureScenario', () => {
  const scenario = fixtureScenario();
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const dirWith = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'wirecheck-fixtures-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };

  test('the bundled fixtures load, in file-name order', () => {
    const labels = loadFixtures(BUNDLED_FIXTURES_DIR).map((f) => f.label);
    expect(labels).toHaveLength(7);
    expect(labels[0]).toBe('01-plain-text.json#0 (plain-text)');
  });

  test.each([
    ['hello there', 0, 'plain-text', 'end_turn'],
    ['please list files', 0, 'one-tool-use', 'tool_use'],
    ['check disk and memory', 0, 'two-tool-uses', 'tool_use'],
    ['tell me a long story', 0, 'max-tokens', 'max_tokens'],
    ['count to ten', 0, 'stop-sequence', 'stop_sequence'],
    ['UNICODE please', 0, 'unicode', 'end_turn'],
  ])('"%s" at turn %i matches fixture %s', async (text, turnIndex, _name, stopReason) => {
    const reply = await messageOf(scenario, ask(text, { tools: bash }), 5, turnIndex);
    expect(reply.message.stop_reason).toBe(stopReason);
    expect(reply.message.model).toBe('mock-model');
    expect(reply.message.id).toBe('msg_mock_0005');
  });

  test('a turn with tool results matches the tool-result answer; two tool_use blocks are both there', async () => {
    const two = await messageOf(scenario, ask('check disk and memory', { tools: bash }));
    expect(two.message.content.filter((b) => b.type === 'tool_use')).toHaveLength(2);
    const request = ask('check disk and memory', { tools: bash });
    request.messages.push(
      { role: 'assistant', content: two.message.content },
      {
        role: 'user',
        content: two.message.content.flatMap((b) =>
          b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: 'ok' }] : [],
        ),
      },
    );
    const answer = await messageOf(scenario, request, 1, 1);
    expect(answer.message.stop_reason).toBe('end_turn');
    expect(answer.message.content[0]).toMatchObject({ type: 'text' });
  });

  test('without a match the reply is a 500 listing the facts and every fixture tried', async () => {
    const reply = await scenario(ask('nothing matches this', { tools: bash }), ctx(0, 0));
    expect(reply).toMatchObject({ kind: 'error', status: 500, errorType: 'api_error' });
    const message = reply.kind === 'error' ? (reply.message ?? '') : '';
    expect(message).toMatch(
      /turnIndex 0, last user text "nothing matches this", hasToolResult false, tools \[bash\]/,
    );
    expect(message).toContain('01-plain-text.json#0 (plain-text): last user text lacks "hello"');
    expect(message).toContain('tried 7');
  });

  test('a file may hold several fixtures; a fixture without match matches everything', async () => {
    const dir = dirWith({
      'a.json': JSON.stringify({
        fixtures: [
          { match: { turnIndex: 1 }, reply: { kind: 'error', status: 429 } },
          { reply: { kind: 'message', message: { content: [{ type: 'text', text: 'fallback' }] } } },
        ],
      }),
    });
    const reply = await messageOf(fixtureScenario(dir), ask('x'));
    expect(reply.message.content).toEqual([{ type: 'text', text: 'fallback' }]);
    expect(reply.message.usage.output_tokens).toBeGreaterThan(0);
  });

  test('a broken fixture file is refused at load with the file and the problem', () => {
    const bad = dirWith({ 'bad.json': JSON.stringify({ reply: { kind: 'message', message: {} } }) });
    expect(() => fixtureScenario(bad)).toThrow(FixtureError);
    expect(() => fixtureScenario(bad)).toThrow(/^fixture bad\.json: invalid at reply\.message\.content: /);
    const notJson = dirWith({ 'x.json': '{' });
    expect(() => fixtureScenario(notJson)).toThrow(/^fixture x\.json: not valid JSON/);
    const badRegex = dirWith({
      'r.json': JSON.stringify({ match: { lastUserTextRegex: '(' }, reply: { kind: 'error', status: 500 } }),
    });
    expect(() => fixtureScenario(badRegex)).toThrow(/lastUserTextRegex/);
  });
});
