import { expect, test } from 'vitest';
import { createLineWatch } from '../../src/harness/line-watch.js';

const bytes = (text: string) => new TextEncoder().encode(text);

test('the first picked line, whatever the chunks cut (a line, a character), and a last line without a break', () => {
  const watch = createLineWatch((line) => line.includes('ärger'));
  const text = 'one\r\ntwo ärger here\nthree ärger\n';
  const all = bytes(text);
  // Cut inside the two-byte ä and inside the CRLF.
  for (const [a, b] of [
    [0, 4],
    [4, 10],
    [10, all.length],
  ] as const)
    watch.push(all.subarray(a, b));
  watch.end();
  expect(watch.found).toBe('two ärger here');

  const last = createLineWatch((line) => line === 'tail');
  last.push(bytes('x\ntail'));
  last.end();
  expect(last.found).toBe('tail');
});

test('a line without end is judged by its start and held to 64 Ki characters; a picked line is kept to 1,000', () => {
  const watch = createLineWatch((line) => line.startsWith('need'));
  watch.push(bytes(`need ${'x'.repeat(100_000)}`));
  for (let i = 0; i < 50; i++) watch.push(bytes('y'.repeat(100_000)));
  watch.end();
  expect(watch.found).toHaveLength(1000);
  const none = createLineWatch(() => false);
  none.push(bytes('a\nb\n'));
  none.end();
  expect(none.found).toBeUndefined();
});

test('a line written a character at a time is judged once, not once per chunk, and the line after it still is', () => {
  let judged = 0;
  const watch = createLineWatch((line) => {
    judged++;
    return line.startsWith('operator');
  });
  const x = bytes('x');
  for (let i = 0; i < 100_000; i++) watch.push(x);
  watch.push(bytes('\noperator line\n'));
  watch.end();
  expect(watch.found).toBe('operator line');
  // The overlong line once (by its first 64 Ki characters), then the picked one.
  expect(judged).toBe(2);
});
