import { expect, test } from 'vitest';
import { helloMessage } from '../../../src/suites/messages-client/context.js';
import { printedMessageProblem } from '../../../src/suites/messages-client/expect.js';
import { bestMs, oneReadMs } from '../../side-by-side.js';

const served = helloMessage();

test('a printed message whose content holds a million bad blocks is refused at once, the first of them named', () => {
  const printed = { ...served, content: Array.from({ length: 1_000_000 }, () => 0) };
  const problem = printedMessageProblem(printed, served);
  // Judged whole, such a message took a gigabyte of heap to describe, a great many times one
  // read of its blocks, which is timed beside it: a machine under load slows both alike, so
  // their ratio holds where a bound in ms does not.
  const read = oneReadMs(printed.content);
  const judged = bestMs(() => printedMessageProblem(printed, served));
  expect(judged, `judged in ${judged.toFixed(2)} ms; read in ${read.toFixed(2)} ms`).toBeLessThan(10 * read);
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
