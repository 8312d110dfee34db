import { describe, expect, test } from 'vitest';
import { invalidLineResult, parseToolUseLine } from '../../../src/protocol/bash/index.js';

const line = (text: string) => ({ kind: 'text', text }) as const;
const use = (input: unknown, extra: object = {}) =>
  JSON.stringify({ type: 'tool_use', id: 'toolu_01', name: 'bash', input, ...extra });

describe('a runner input line', () => {
  test('a bash tool_use is accepted', () => {
    const parsed = parseToolUseLine(line(use({ command: 'echo hi' })));
    expect(parsed).toEqual({
      ok: true,
      toolUse: { type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'echo hi' } },
    });
  });
  test('restart: true may come without a command', () => {
    expect(parseToolUseLine(line(use({ restart: true }))).ok).toBe(true);
  });
  test('a command with an escaped NUL parses (the runner answers it with an error)', () => {
    const parsed = parseToolUseLine(line(use({ command: 'echo a\u0000b' })));
    expect(parsed.ok && parsed.toolUse.input.command).toBe('echo a\u0000b');
  });
  test.each([
    ['not JSON', '{"type":', /not JSON/],
    [
      'a raw NUL byte inside a string',
      `{"type":"tool_use","id":"t","name":"bash","input":{"command":"a\u0000b"}}`,
      /not JSON/,
    ],
    ['an empty line', '', /empty/],
    ['a JSON array', '[1]', /not a JSON object/],
  ])('%s yields an error with tool_use_id ""', (_name, text, problem) => {
    const parsed = parseToolUseLine(line(text));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.toolUseId).toBe('');
    expect(parsed.problem).toMatch(problem);
    const result = invalidLineResult(parsed);
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: '', is_error: true });
  });
  test.each([
    ['no command', use({}), /command/],
    ['a command that is not a string', use({ command: 42 }), /command/],
    ['restart that is not a boolean', use({ command: 'x', restart: 'true' }), /restart/],
    ['another tool', use({ command: 'x' }, { name: 'Bash' }), /unknown tool "Bash"/],
    ['a block that is not a tool_use', use({ command: 'x' }, { type: 'text' }), /type/],
  ])('%s yields an error that keeps the id and names what was wrong', (_name, text, problem) => {
    const parsed = parseToolUseLine(line(text));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.toolUseId).toBe('toolu_01');
    expect(parsed.problem).toMatch(problem);
  });
  test('a line too long or not UTF-8 yields an error with tool_use_id ""', () => {
    expect(parseToolUseLine({ kind: 'too-long', bytes: 10, maxBytes: 5 })).toMatchObject({
      ok: false,
      toolUseId: '',
    });
    expect(parseToolUseLine({ kind: 'not-utf8' })).toMatchObject({ ok: false, toolUseId: '' });
  });
});
