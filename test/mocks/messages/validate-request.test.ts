import { describe, expect, test } from 'vitest';
import { conversationError, validateRequest } from '../../../src/mocks/messages/index.js';
import type { MessageRequest } from '../../../src/protocol/messages/index.js';

const bash = [{ type: 'bash_20250124', name: 'bash' }];
const base = { model: 'm', max_tokens: 100 };
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'bash', input: { command: 'ls' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok', is_error: false });
const refusal = (body: unknown) => {
  const r = validateRequest(body);
  return r.ok ? undefined : r.message;
};

describe('request schema', () => {
  test('a well-formed tool-use conversation is accepted', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }, toolUse('t1'), toolUse('t2')] },
        { role: 'user', content: [toolResult('t1'), toolResult('t2')] },
      ],
    };
    expect(validateRequest(body)).toMatchObject({ ok: true });
  });

  test('empty content is refused as the real API does, except in a final assistant turn (a prefill)', () => {
    const rule = 'all messages must have non-empty content except for the optional final assistant message';
    const user = { role: 'user', content: 'hi' };
    expect(refusal({ ...base, messages: [user, { role: 'assistant', content: [] }] })).toBeUndefined();
    expect(refusal({ ...base, messages: [user, { role: 'assistant', content: '' }] })).toBeUndefined();
    expect(refusal({ ...base, messages: [{ role: 'user', content: [] }] })).toBe(`messages.0: ${rule}`);
    expect(refusal({ ...base, messages: [{ role: 'user', content: '' }] })).toBe(`messages.0: ${rule}`);
    const middle = [user, { role: 'assistant', content: [] }, { role: 'user', content: 'go on' }];
    expect(refusal({ ...base, messages: middle })).toBe(`messages.1: ${rule}`);
  });

  test('tools the real API defines by type (web search, text editor, ones it adds later) are accepted beside bash', () => {
    const messages = [{ role: 'user', content: 'x' }];
    const typed = [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
      { type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' },
      { type: 'code_execution_20250522', name: 'code_execution' },
      { type: 'mcp_toolset', mcp_server_name: 'docs' },
    ];
    expect(refusal({ ...base, messages, tools: [...bash, ...typed] })).toBeUndefined();
  });

  test('a tool definition is refused for what is wrong in the shape it means to have', () => {
    const messages = [{ role: 'user', content: 'x' }];
    const withTool = (tool: unknown) => refusal({ ...base, messages, tools: [...bash, tool] });
    // A bash version the real API does not know, and a tool named bash of another type.
    expect(withTool({ type: 'bash_20991231', name: 'bash' })).toMatch(/^tools\.1\.type: .*"bash_20250124"/);
    expect(withTool({ type: 'computer_20250124', name: 'bash' })).toMatch(
      /^tools\.1\.type: .*"bash_20250124"/,
    );
    expect(withTool({ type: 'custom', name: 'x' })).toBe(
      'tools.1.input_schema: Field required (expected object)',
    );
    expect(withTool({ name: 'bad name', input_schema: { type: 'object' } })).toMatch(/^tools\.1\.name: /);
    expect(withTool({ type: 'Web Search', name: 'web_search' })).toMatch(
      /^tools\.1\.type: a tool type is a lower-case identifier/,
    );
  });

  test('a body that is not an object is refused', () => {
    expect(refusal([1])).toBe('request body: expected a JSON object, got array');
    expect(refusal(null)).toBe('request body: expected a JSON object, got null');
  });

  test('a missing required field is named', () => {
    expect(refusal({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).toBe(
      'max_tokens: Field required (expected number)',
    );
  });

  test('a tool_result without tool_use_id is located down to the field', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1')] },
        { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] },
      ],
    };
    expect(refusal(body)).toBe('messages.2.content.0.tool_use_id: Field required (expected string)');
  });

  test('a content of the wrong type says what was expected', () => {
    expect(refusal({ ...base, messages: [{ role: 'user', content: 5 }] })).toBe(
      'messages.0.content: expected string or array, got number',
    );
  });

  test('a wrong role is refused with the allowed values', () => {
    expect(refusal({ ...base, messages: [{ role: 'bot', content: 'x' }] })).toMatch(
      /^messages\.0\.role: .*user.*assistant/,
    );
  });
});

describe('conversation rules', () => {
  test('tool_use is refused in a user turn', () => {
    const body = { ...base, tools: bash, messages: [{ role: 'user', content: [toolUse('t1')] }] };
    expect(refusal(body)).toMatch(
      /^messages\.0\.content\.0: tool_use blocks may only appear in assistant turns/,
    );
  });

  test('tool_result is refused in an assistant turn', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolResult('t1')] },
      ],
    };
    expect(refusal(body)).toMatch(
      /^messages\.1\.content\.0: tool_result blocks may only appear in user turns/,
    );
  });

  test('a tool_result must answer a tool_use of the immediately preceding assistant turn', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1')] },
        { role: 'user', content: [toolResult('t1'), toolResult('t9')] },
      ],
    };
    expect(refusal(body)).toMatch(
      /^messages\.2\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: t9\./,
    );
  });

  test('one tool_use has one tool_result: a second result for the same id is refused', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1')] },
        { role: 'user', content: [toolResult('t1'), toolResult('t1')] },
      ],
    };
    expect(refusal(body)).toBe(
      'messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: t1',
    );
  });

  test('the tool_use ids of a turn are unique', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1'), toolUse('t1')] },
        { role: 'user', content: [toolResult('t1')] },
      ],
    };
    expect(refusal(body)).toBe(
      'messages.1.content.1: `tool_use` ids must be unique (t1 is used twice in this turn)',
    );
  });

  test('every tool_use must be answered in the next turn', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1'), toolUse('t2')] },
        { role: 'user', content: [toolResult('t1')] },
      ],
    };
    expect(refusal(body)).toMatch(
      /^messages\.2: `tool_use` ids were found without `tool_result` blocks immediately after: t2\./,
    );
  });

  /** A conversation whose user turn `content` answers the assistant's tool_use blocks t1 and t2. */
  const answer = (content: unknown[]) => ({
    ...base,
    tools: bash,
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [toolUse('t1'), toolUse('t2')] },
      { role: 'user', content },
    ],
  });

  test('text before the tool_result blocks of a turn is refused: they must come first', () => {
    const note = { type: 'text', text: 'Here are the results:' };
    expect(refusal(answer([note, toolResult('t1'), toolResult('t2')]))).toBe(
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: t1, t2. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message. ' +
        'The tool_result blocks for t1, t2 come after the text block at messages.2.content.0: ' +
        'tool_result blocks must come first in the content array, any text after them.',
    );
    // Any text must come after all the results, not only after the first.
    expect(refusal(answer([toolResult('t1'), note, toolResult('t2')]))).toMatch(
      /^messages\.2: `tool_use` ids were found without `tool_result` blocks immediately after: t2\. .* The tool_result blocks for t2 come after the text block at messages\.2\.content\.1: /,
    );
  });

  test('text after all the tool_result blocks is served, and so is an image before them', () => {
    const note = { type: 'text', text: 'What next?' };
    expect(refusal(answer([toolResult('t1'), toolResult('t2'), note]))).toBeUndefined();
    expect(refusal(answer([toolResult('t2'), toolResult('t1'), note, note]))).toBeUndefined();
    // No source tried a non-text block first: served (accepting is the safe side).
    const image = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    };
    expect(refusal(answer([image, toolResult('t1'), toolResult('t2')]))).toBeUndefined();
  });

  test("the order of results and text is the real API's rule, not the spec's: the spec rules leave it out", () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1')] },
        { role: 'user', content: [{ type: 'text', text: 'Here:' }, toolResult('t1')] },
      ],
    } as unknown as MessageRequest;
    expect(conversationError(body)).toBeUndefined();
    expect(conversationError(body, { resultsFirst: true })).toMatch(
      /^messages\.2: `tool_use` ids were found/,
    );
  });

  test('a conversation may end with an assistant turn holding tool_use', () => {
    const body = {
      ...base,
      tools: bash,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1')] },
      ],
    };
    expect(refusal(body)).toBeUndefined();
  });

  test('tool blocks require tools to be defined', () => {
    const body = {
      ...base,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [toolUse('t1')] },
        { role: 'user', content: [toolResult('t1')] },
      ],
    };
    expect(refusal(body)).toMatch(
      /^Requests which include `tool_use` or `tool_result` blocks must define tools\. Found a/,
    );
  });
});
