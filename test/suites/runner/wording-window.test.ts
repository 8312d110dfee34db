import { expect, test } from 'vitest';
import { NO_OUTPUT } from '../../../src/suites/runner/checks/output.js';
import { TIMED_OUT } from '../../../src/suites/runner/checks/timeout.js';
import {
  expectMatches,
  mentions,
  NOTE_WINDOW_CHARS,
  noteWindows,
  numberPattern,
} from '../../../src/suites/runner/expect.js';
import { LIMIT_NOTE } from '../../../src/suites/runner/output-rules.js';

// The wording patterns read only the ends of a result text: however long a hostile runner
// makes it, each match runs on a bounded input (no timing assertion needed to know it ends).

/** A pattern that records the length of every text it is asked about. */
class Recording extends RegExp {
  readonly seen: number[] = [];
  override test(text: string): boolean {
    this.seen.push(text.length);
    return super.test(text);
  }
}

const HOSTILE = [`y\ny\n64${' '.repeat(1_000_000)}x`, 'exceed '.repeat(1_000_000), 'no '.repeat(1_000_000)];

test.each(HOSTILE.map((text) => [text.length, text]))(
  'a text of %i characters is read in bounded windows',
  (_, text) => {
    const windows = noteWindows(text);
    expect(windows.length).toBeLessThanOrEqual(2);
    for (const window of windows) expect(window.length).toBeLessThanOrEqual(NOTE_WINDOW_CHARS);
  },
);

test('a short text is read whole, in one window', () => {
  const text = 'x'.repeat(2 * NOTE_WINDOW_CHARS);
  expect(noteWindows(text)).toEqual([text]);
});

test('expectMatches hands its pattern only bounded windows of a hostile text', () => {
  const pattern = new Recording(TIMED_OUT.source, TIMED_OUT.flags);
  // Long enough to be windowed; short enough that reading it whole (quadratic) ends in seconds.
  const content = 'exceed '.repeat(50_000);
  expect(() =>
    expectMatches(
      { type: 'tool_result', tool_use_id: 't', content, is_error: true },
      pattern,
      'x',
      'time out',
    ),
  ).toThrow();
  expect(pattern.seen.length).toBeGreaterThan(0);
  expect(Math.max(...pattern.seen)).toBeLessThanOrEqual(NOTE_WINDOW_CHARS);
}, 5_000);

test('the hostile texts are no notes', () => {
  expect(mentions(LIMIT_NOTE, HOSTILE[0]!)).toBe(false);
  expect(mentions(TIMED_OUT, HOSTILE[1]!)).toBe(false);
  expect(mentions(NO_OUTPUT, HOSTILE[2]!)).toBe(false);
});

test("a flood's timeout text comes first and its limit note last: both are found (docs/runner.md)", () => {
  const content = `Command timed out after 2 seconds.\n${'y\n'.repeat(32_768)}\n[output truncated: the 64 KB limit (65536 bytes) was exceeded; 2147483648 bytes of output in all]`;
  expect(mentions(TIMED_OUT, content)).toBe(true);
  expect(mentions(numberPattern(2), content)).toBe(true);
  expect(mentions(LIMIT_NOTE, content)).toBe(true);
});

test('a timeout text after the kept output and the limit note is found too', () => {
  const content = `${'y\n'.repeat(32_768)}\n[truncated at 64 KiB]\n[timed out after 2 s]`;
  expect(mentions(TIMED_OUT, content)).toBe(true);
  expect(mentions(LIMIT_NOTE, content)).toBe(true);
});

test('the realistic wordings still match with the bounded gaps', () => {
  expect(mentions(TIMED_OUT, `the command exceeded the ${'very '.repeat(30)}long limit of 2 seconds`)).toBe(
    true,
  );
  expect(mentions(NO_OUTPUT, `exit 0; no ${'visible '.repeat(20)}output`)).toBe(true);
  expect(mentions(LIMIT_NOTE, 'cut at 64 - KiB')).toBe(true);
});
