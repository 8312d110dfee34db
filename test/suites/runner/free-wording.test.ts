import { expect, test } from 'vitest';
import { NO_OUTPUT } from '../../../src/suites/runner/checks/output.js';
import { TIMED_OUT } from '../../../src/suites/runner/checks/timeout.js';
import { LIMIT_NOTE } from '../../../src/suites/runner/output-rules.js';

// The spec asks runners for notes ("a note that the 64 KB limit was exceeded", a text
// "stating that the command timed out", one stating "that no output was produced") without
// fixing their words: the suite reads the words runners choose, and not just the reference's.

test.each([
  ['[output truncated: exceeded the 64 KB limit (65536 bytes)]'],
  ['[output truncated: exceeded the 64 kilobyte limit]'],
  ['(truncated at 64KiB)'],
  ['output over the 64-KB limit was dropped'],
  ['cut at 64K'],
  ['cut to 65,536 bytes'],
])('a limit note: %s', (note) => expect(LIMIT_NOTE.test(note)).toBe(true));

test.each([['[truncated]'], ['cut at 640 KB'], ['64 bytes']])('not a note of the 64 KB limit: %s', (note) =>
  expect(LIMIT_NOTE.test(note)).toBe(false),
);

test.each([
  ['Command timed out after 2 seconds'],
  ['Command killed: it exceeded the time limit of 2 seconds.'],
  ['timeout: the command ran longer than 2 s'],
  ['exceeded 2 seconds'],
])('a timeout text: %s', (text) => expect(TIMED_OUT.test(text)).toBe(true));

test.each([['exit code -1'], ['Killed'], ['exceeded the 64 KB limit']])('not a timeout text: %s', (text) =>
  expect(TIMED_OUT.test(text)).toBe(false),
);

test.each([
  ['(no output; exit code 0)'],
  ['(exit status 0; no stdout or stderr)'],
  ['exit 3, output empty'],
  ['(none) exit 0'],
  ['exit code 0, blank'],
])('a no-output text: %s', (text) => expect(NO_OUTPUT.test(text)).toBe(true));

test('a no-output text must say so: the exit code alone is not enough', () => {
  expect(NO_OUTPUT.test('exit code 0')).toBe(false);
});
