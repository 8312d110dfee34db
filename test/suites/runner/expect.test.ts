import { expect, test } from 'vitest';
import { BashToolUse } from '../../../src/protocol/bash/index.js';
import { expectCommandOutput, numberPattern } from '../../../src/suites/runner/expect.js';
import { rawLine, toolUse } from '../../../src/suites/runner/lines.js';

test('a number in a result text is matched as a number of its own', () => {
  const two = numberPattern(2);
  for (const text of ['Command timed out after 2 seconds', 'timed out (2s)', 'timeout: 2.0 s', '2']) {
    expect(text).toMatch(two);
  }
  for (const text of ['timed out after 12 seconds', 'after 20 s', 'exit code -1', 'after 0.2 s']) {
    expect(text).not.toMatch(two);
  }
});

test('an input line is a bash tool_use block the contract accepts, restart included when asked', () => {
  const line = toolUse('echo "a\nb"', { id: 'toolu_1', restart: true });
  expect(line.text).not.toContain('\n');
  expect(BashToolUse.parse(JSON.parse(line.text))).toEqual({
    type: 'tool_use',
    id: 'toolu_1',
    name: 'bash',
    input: { command: 'echo "a\nb"', restart: true },
  });
  expect(toolUse('true').id).toMatch(/^toolu_/);
  expect(() => rawLine('a\nb')).toThrow();
});

test("a command's one-word output is found in a labelled text as a word of its own, not inside a longer one", () => {
  const result = (content: string) => ({
    type: 'tool_result' as const,
    tool_use_id: 'toolu_1',
    content,
    is_error: false,
  });
  for (const content of ['line-1\n', 'line-1', 'STDOUT:\nline-1\n', 'STDOUT: line-1']) {
    expect(() => expectCommandOutput(result(content), 'line-1\n', 'echo line-1')).not.toThrow();
  }
  for (const content of ['line-10\n', 'STDOUT:\nline-2\n', 'xline-1', 'line-1-b', '']) {
    expect(() => expectCommandOutput(result(content), 'line-1\n', 'echo line-1')).toThrow(
      /not the command's output/,
    );
  }
});
