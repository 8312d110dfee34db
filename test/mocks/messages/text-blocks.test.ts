import { describe, expect, test } from 'vitest';
import { build, validateRequest } from '../../../src/mocks/messages/index.js';

const base = { model: 'm', max_tokens: 100 };
const bash = [{ type: 'bash_20250124', name: 'bash' }];
const text = (t: string) => ({ type: 'text', text: t });
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'bash', input: { command: 'ls' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const refusal = (messages: unknown[], extra: object = {}) => {
  const r = validateRequest({ ...base, ...extra, messages });
  return r.ok ? undefined : r.message;
};

const NON_EMPTY = 'messages: text content blocks must be non-empty';
const NON_WHITESPACE = 'messages: text content blocks must contain non-whitespace text';
const TRAILING = 'messages: final assistant content cannot end with trailing whitespace';

describe('blank text blocks, refused in the real API words', () => {
  test('an empty text block is refused wherever it is in a user or earlier assistant turn', () => {
    expect(refusal([{ role: 'user', content: [text('')] }])).toBe(
      `${NON_EMPTY} (messages.0.content.0 is "")`,
    );
    expect(refusal([{ role: 'user', content: [text('real'), text('')] }])).toBe(
      `${NON_EMPTY} (messages.0.content.1 is "")`,
    );
    // What the SDKs' threads hit: a reply's empty text block sent back beside its tool_use.
    const replayed = [
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: [text(''), toolUse('t1')] },
      { role: 'user', content: [toolResult('t1')] },
    ];
    expect(refusal(replayed, { tools: bash })).toBe(`${NON_EMPTY} (messages.1.content.0 is "")`);
  });

  test('a turn whose text is all whitespace is refused, quoting the whitespace', () => {
    expect(refusal([{ role: 'user', content: [text(' ')] }])).toBe(
      `${NON_WHITESPACE} (messages.0 has no text but whitespace: content.0 is " ")`,
    );
    expect(refusal([{ role: 'user', content: [text('\n'), text('\t \r\n')] }])).toMatch(
      new RegExp(`^${NON_WHITESPACE} \\(messages\\.0 has no text but whitespace: content\\.0 is "\\\\n"\\)$`),
    );
    const earlierAssistant = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [text('\n\n')] },
      { role: 'user', content: 'go on' },
    ];
    expect(refusal(earlierAssistant)).toMatch(new RegExp(`^${NON_WHITESPACE} \\(messages\\.1 `));
    // An assistant turn of whitespace text beside its tool_use: its text is still all blank.
    const besideToolUse = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [text('\n\n'), toolUse('t1')] },
      { role: 'user', content: [toolResult('t1')] },
    ];
    expect(refusal(besideToolUse, { tools: bash })).toMatch(
      new RegExp(`^${NON_WHITESPACE} \\(messages\\.1 `),
    );
  });

  test('a system block of whitespace is refused even beside real text, and an empty one as empty', () => {
    const hi = [{ role: 'user', content: 'hi' }];
    expect(refusal(hi, { system: [text('You are terse.'), text(' \n')] })).toBe(
      'system: text content blocks must contain non-whitespace text (system.1 is " \\n")',
    );
    expect(refusal(hi, { system: [text('')] })).toBe(
      'system: text content blocks must be non-empty (system.0 is "")',
    );
    // A string is one block to the real API: an empty one is refused as empty.
    expect(refusal(hi, { system: '' })).toBe('system: text content blocks must be non-empty (system is "")');
    // Judged before the turns, so the system block is named first.
    expect(refusal([{ role: 'user', content: [text(' ')] }], { system: [text('\t')] })).toMatch(/^system: /);
  });

  test('a long blank text is quoted in part', () => {
    const message = refusal([{ role: 'user', content: [text(' '.repeat(100_000))] }])!;
    expect(message.startsWith(NON_WHITESPACE)).toBe(true);
    expect(message.length).toBeLessThan(NON_WHITESPACE.length + 80);
  });

  test('the final assistant turn (a prefill) is refused when its content ends with whitespace', () => {
    const user = { role: 'user', content: 'Write JSON.' };
    expect(refusal([user, { role: 'assistant', content: 'Here it is: ' }])).toBe(
      `${TRAILING} (messages.1 ends with " ")`,
    );
    expect(refusal([user, { role: 'assistant', content: [text('{'), text('"a":\n')] }])).toBe(
      `${TRAILING} (messages.1.content.1 ends with "\\n")`,
    );
    expect(refusal([user, { role: 'assistant', content: [text(' \t ')] }])).toBe(
      `${TRAILING} (messages.1.content.0 ends with " \\t ")`,
    );
  });
});

describe('text the real API accepts is still served', () => {
  test('whitespace beside real text in the same turn is accepted', () => {
    expect(refusal([{ role: 'user', content: [text(' '), text('real')] }])).toBeUndefined();
    expect(refusal([{ role: 'user', content: [text('real\n'), text('\n')] }])).toBeUndefined();
  });

  test('a system string of whitespace, and system blocks of real text, are accepted', () => {
    const hi = [{ role: 'user', content: 'hi' }];
    expect(refusal(hi, { system: ' ' })).toBeUndefined();
    expect(refusal(hi, { system: [text('Be brief.\n'), text(' and exact')] })).toBeUndefined();
    expect(refusal(hi, { system: [] })).toBeUndefined();
  });

  test('text with leading or inner whitespace, and a string turn, are accepted', () => {
    expect(refusal([{ role: 'user', content: [text('  indented\n\ncode')] }])).toBeUndefined();
    expect(refusal([{ role: 'user', content: 'trailing space is fine in a user turn ' }])).toBeUndefined();
    const history = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [text('An earlier answer may end in a newline.\n')] },
      { role: 'user', content: [text('thanks ')] },
    ];
    expect(refusal(history)).toBeUndefined();
  });

  test('a prefill that does not end with whitespace is accepted, and so is an empty one', () => {
    const user = { role: 'user', content: 'Write JSON.' };
    expect(refusal([user, { role: 'assistant', content: 'Here it is: {' }])).toBeUndefined();
    expect(refusal([user, { role: 'assistant', content: [text('  {')] }])).toBeUndefined();
    expect(refusal([user, { role: 'assistant', content: '' }])).toBeUndefined();
    expect(refusal([user, { role: 'assistant', content: [] }])).toBeUndefined();
  });

  test('a final assistant turn ending with a tool_use is not judged by the text before it', () => {
    const messages = [
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: [text('I will run ls. '), toolUse('t1')] },
    ];
    expect(refusal(messages, { tools: bash })).toBeUndefined();
  });

  test('blank text nested in a tool_result is not judged', () => {
    const messages = [
      { role: 'user', content: 'run it' },
      { role: 'assistant', content: [toolUse('t1')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [text('')] }] },
    ];
    expect(refusal(messages, { tools: bash })).toBeUndefined();
  });
});

describe('over HTTP', () => {
  test('a blank text block gets 400 invalid_request_error with the real API message', async () => {
    const app = build();
    const res = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      payload: JSON.stringify({ ...base, messages: [{ role: 'user', content: [text(' \n')] }] }),
    });
    await app.close();
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error).toEqual({
      type: 'invalid_request_error',
      message: `${NON_WHITESPACE} (messages.0 has no text but whitespace: content.0 is " \\n")`,
    });
  });
});
