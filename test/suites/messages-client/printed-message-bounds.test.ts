import { expect, test } from 'vitest';
import { helloMessage } from '../../../src/suites/messages-client/context.js';
import { printedMessageProblem } from '../../../src/suites/messages-client/expect.js';

const served = helloMessage();

test('a printed message whose content holds a million bad blocks is refused at once, the first of them named', () => {
  const printed = { ...served, content: Array.from({ length: 1_000_000 }, () => 0) };
  const started = performance.now();
  const problem = printedMessageProblem(printed, served);
  // Generous: judged whole, such a message took a gigabyte of heap to describe.
  expect(performance.now() - started).toBeLessThan(5000);
  expect(problem?.says).toMatch(/^stdout is not a message in the buffered response shape \(content\.0: /);
  expect(problem?.says).toMatch(
    /\) \(content\.0 is the first bad block of 1000000; the blocks after it were not judged\)$/,
  );
});

test('blocks before the first bad one are judged, blocks of other types included', () => {
  const content = [
    { type: 'text', text: 'Hello! 👋' },
    { type: 'thinking', thinking: '...' },
    { type: 'tool_use', id: '', name: 'bash', input: {} },
    ...Array.from({ length: 1000 }, () => 0),
  ];
  const problem = printedMessageProblem({ ...served, content }, served);
  expect(problem?.says).toContain('(content.2 is the first bad block of 1003;');
});

test('a printed message that is the served one passes, whatever other blocks it holds; a lone bad last block is named by zod alone', () => {
  const content = [
    ...Array.from({ length: 10_000 }, () => ({ type: 'thinking', thinking: 'x' })),
    ...served.content,
  ];
  expect(printedMessageProblem({ ...served, content }, served)).toBeUndefined();
  const problem = printedMessageProblem({ ...served, content: [...served.content, 0] }, served);
  expect(problem?.says).toMatch(
    /^stdout is not a message in the buffered response shape \(content\.1: [^)]*\)$/,
  );
});
