import { expect, test } from 'vitest';
import { NO_OUTPUT } from '../../../src/suites/runner/checks/output.js';
import { SECURITY_VIOLATION } from '../../../src/suites/runner/checks/refusal.js';
import { NAMES_FAILURE, NAMES_PROCESS } from '../../../src/suites/runner/checks/spawn-failure.js';
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
  ['expired after 2 seconds'],
  ['did not finish within 2 seconds'],
  ['killed after exceeding the 2 s limit'],
  ['Command took more than 2 seconds and was terminated'],
  ['Command ran for more than 2 seconds and was killed'],
  ['Killed: command still running after 2 seconds'],
  ['Command cancelled after 2 seconds'],
])('a timeout text: %s', (text) => expect(TIMED_OUT.test(text)).toBe(true));

test.each([
  ['exit code -1'],
  ['Killed'],
  ['exceeded the 64 KB limit'],
  ['the command took more memory than allowed'],
  ['stopped after the first error'],
])('not a timeout text: %s', (text) => expect(TIMED_OUT.test(text)).toBe(false));

test.each([
  ['(no output; exit code 0)'],
  ['(exit status 0; no stdout or stderr)'],
  ['exit 3, output empty'],
  ['(none) exit 0'],
  ['exit code 0, blank'],
  ['Exit code 0 (the command did not produce any output)'],
  ['exit 0 without any output'],
  ['exit 3; 0 bytes of output'],
])('a no-output text: %s', (text) => expect(NO_OUTPUT.test(text)).toBe(true));

test('a no-output text must say so: the exit code alone is not enough', () => {
  expect(NO_OUTPUT.test('exit code 0')).toBe(false);
});

test.each([
  ['Security violation: the command contains a blocked substring'],
  ["Refused: command matches blocked pattern 'rm -rf /'"],
  ['Blocked: destructive command not allowed'],
  ['This command is not permitted: it is dangerous'],
  ['command rejected by the blocklist'],
])('a text naming a security violation: %s', (text) => expect(SECURITY_VIOLATION.test(text)).toBe(true));

test.each([['exit code 1'], ["rm: cannot remove '/': Permission denied"], ['(no output; exit code 0)']])(
  'not a security violation text: %s',
  (text) => expect(SECURITY_VIOLATION.test(text)).toBe(false),
);

const namesProcessError = (text: string) => NAMES_PROCESS.test(text) && NAMES_FAILURE.test(text);

test.each([
  ['Error: failed to spawn process: ENOTDIR'],
  ['could not run the command: /tmp/x/work is not a directory'],
  ['Command failed to start: Not a directory'],
  // The case's cause named instead of the process: a runner that creates the directory first.
  ['Error: failed to create working directory /tmp/x/work: Not a directory'],
  ["mkdir: cannot create directory '/tmp/x/work': Not a directory"],
])('a text naming a process execution error: %s', (text) => expect(namesProcessError(text)).toBe(true));

test.each([['Not a directory'], ['exit code 1']])('not a process execution error text: %s', (text) =>
  expect(namesProcessError(text)).toBe(false),
);
