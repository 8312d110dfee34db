import { expect, test } from 'vitest';
import { CheckFailure } from '../../../src/harness/check.js';
import { assembleOutput, OUTPUT_LIMIT_BYTES, truncateOutput } from '../../../src/protocol/bash/index.js';
import { expectAssembledOutput } from '../../../src/suites/runner/index.js';

const LIMIT = OUTPUT_LIMIT_BYTES;
const NOTE = '\n[output truncated: the 64 KB limit was exceeded]';

function verdict(content: string, stdout: string, stderr = ''): string {
  try {
    expectAssembledOutput(content, stdout, stderr, 'case');
    return 'pass';
  } catch (e) {
    if (e instanceof CheckFailure) return e.message;
    throw e;
  }
}

test('output within the limit must come back exactly, separator included', () => {
  expect(verdict('out\n\n--- STDERR ---\nerr\n', 'out\n', 'err\n')).toBe('pass');
  expect(verdict('out\nerr\n', 'out\n', 'err\n')).toMatch(/did not come back exactly/);
  expect(verdict(`x${'a'.repeat(LIMIT - 1)}`, `x${'a'.repeat(LIMIT - 1)}`)).toBe('pass');
});

test('the protocol rules produce content the check accepts, for every straddling character width', () => {
  for (const fill of ['a', 'é', '€', '😀']) {
    for (const shift of [0, 1, 2, 3]) {
      const stdout = `${'x'.repeat(shift)}${fill.repeat(Math.ceil(LIMIT / fill.length))}`;
      const stderr = shift % 2 === 0 ? 'err' : '';
      const { text } = truncateOutput(assembleOutput(stdout, stderr));
      expect(verdict(text, stdout, stderr)).toBe('pass');
    }
  }
});

test('a cut by characters keeps more than 65536 bytes and fails', () => {
  const stdout = `${'a'.repeat(LIMIT - 2)}${'😀'.repeat(4)}`;
  const byChars = stdout.slice(0, LIMIT) + NOTE;
  expect(verdict(byChars, stdout)).toMatch(/more byte\(s\) of output were kept/);
});

test('a cut through a character (U+FFFD) fails', () => {
  const stdout = `x${'é'.repeat(40_000)}`;
  const split = Buffer.from(stdout).subarray(0, LIMIT).toString('utf8') + NOTE;
  expect(verdict(split, stdout)).toMatch(/U\+FFFD/);
});

test('output cut too early, or cut without the note, fails', () => {
  const stdout = 'a'.repeat(LIMIT + 10);
  expect(verdict('a'.repeat(LIMIT - 100) + NOTE, stdout)).toMatch(/were not cut to their first 65536 bytes/);
  expect(verdict('a'.repeat(LIMIT), stdout)).toMatch(/no note/);
  expect(verdict(stdout, stdout)).toMatch(/more byte\(s\) of output were kept/);
});

test('a note may begin with the line break the output continues with, and may name the limit several ways', () => {
  const stdout = `${'a'.repeat(LIMIT)}\n${'b'.repeat(10)}`;
  for (const note of [
    '\n[64 KB limit exceeded]',
    '\n... truncated (64KiB)',
    ' (over 65536 bytes)',
    '\n\n65,536 bytes',
  ]) {
    expect(verdict('a'.repeat(LIMIT) + note, stdout)).toBe('pass');
  }
});

test('a note that only says the output was cut passes the cut; naming the limit is asked apart', () => {
  const stdout = 'a'.repeat(LIMIT + 10);
  const bare = `${'a'.repeat(LIMIT)}\n[output truncated]`;
  expect(verdict(bare, stdout)).toBe('pass');
  expect(() => expectAssembledOutput(bare, stdout, '', 'case', 'forbid', 'names-limit')).toThrow(
    /does not name the 64 KB limit/,
  );
  expect(() =>
    expectAssembledOutput(`${'a'.repeat(LIMIT)}${NOTE}`, stdout, '', 'case', 'forbid', 'names-limit'),
  ).not.toThrow();
  // The note's words are the runner's: any text after an exact cut is its note; only blanks are none.
  for (const note of ['\n[output capped]', ' [snip]', '\n... (output continues)', '\n[rest discarded]']) {
    expect(verdict(`${'a'.repeat(LIMIT)}${note}`, stdout)).toBe('pass');
  }
  expect(verdict(`${'a'.repeat(LIMIT)}\n \n`, stdout)).toMatch(/no note/);
});
