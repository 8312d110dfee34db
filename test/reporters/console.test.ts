import { describe, expect, test } from 'vitest';
import {
  formatCheck,
  formatConsoleReport,
  formatSuiteSummary,
  formatTotals,
  shouldUseColor,
} from '../../src/reporters/console.js';
import { check, mixedResult, suiteResult } from './fixtures.js';

const plain = { color: false };

describe('console reporter', () => {
  test('a passing check is one line with status word, id and duration', () => {
    const out = formatCheck(check({ id: 'demo.x.ok', status: 'pass', durationMs: 7 }), plain);
    expect(out).toBe('  ✓ PASS  demo.x.ok  7 ms');
  });

  test('a failure is followed by its indented message, expected, actual and reproduce line', () => {
    const fail = mixedResult().checks.find((c) => c.status === 'fail')!;
    const lines = formatCheck(fail, plain).split('\n');
    expect(lines[0]).toBe('  ✗ FAIL  demo.a.fail  12 ms');
    expect(lines.slice(1)).toEqual([
      '      message_delta arrived before content_block_stop [Events rule 1]',
      '      expected: content_block_stop',
      '      actual:   message_delta',
      '      reproduce: npx wirecheck test demo --seed 42 --only demo.a.fail',
    ]);
  });

  test('a warning shows its message and reproduce line, a skip its reason', () => {
    const [, , warn, skip] = mixedResult().checks;
    expect(formatCheck(warn!, plain)).toMatch(
      /^ {2}! WARN {2}demo\.a\.warn[^\n]*\n {6}no ping frame.*\n {6}reproduce: /,
    );
    expect(formatCheck(skip!, plain)).toBe('  - SKIP  demo.a.skip  12 ms\n      target does not stream');
  });

  test('multi-line values stay indented under their label', () => {
    const out = formatCheck(check({ id: 'demo.m', status: 'fail', expected: 'line one\nline two' }), plain);
    expect(out).toContain('      expected: line one\n                line two');
  });

  test("a target's terminal control characters are shown, not obeyed", () => {
    const out = formatCheck(check({ id: 'demo.c', status: 'fail', message: 'evil\u001b[2J\rdone' }), plain);
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\r');
    expect(out).toContain('evil\\u001b[2J\\u000ddone');
  });

  test('colour codes appear only when colour is on', () => {
    const c = check({ id: 'demo.x', status: 'fail', message: 'bad' });
    expect(formatCheck(c, plain)).not.toContain('\u001b[');
    expect(formatCheck(c, { color: true })).toContain('\u001b[31m');
  });

  test('colour needs a terminal and an unset or empty NO_COLOR', () => {
    expect(shouldUseColor({ isTTY: true }, {})).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldUseColor({ isTTY: false }, {})).toBe(false);
    expect(shouldUseColor({}, {})).toBe(false);
  });

  test('the suite summary counts every status', () => {
    expect(formatSuiteSummary(mixedResult(), plain)).toBe(
      'suite demo: 1 passed, 1 failed, 1 warned, 1 skipped in 1.23 s (seed 42)',
    );
  });

  test('the last line is exactly the totals over all suites; warnings are named apart from passes', () => {
    const out = formatTotals([mixedResult('a'), mixedResult('b')], { strict: false });
    expect(out.split('\n')).toEqual(['2 passed, 2 failed, 2 warned, 2 skipped']);
  });

  test('under --strict the warnings count as failed', () => {
    const out = formatTotals([mixedResult()], { strict: true });
    expect(out.split('\n')).toEqual([
      '1 warned (counted as failed under --strict)',
      '1 passed, 2 failed, 0 warned, 1 skipped',
    ]);
  });

  test('without warnings the totals are one line', () => {
    const clean = suiteResult('demo', [check({ id: 'demo.ok', status: 'pass' })]);
    expect(formatTotals([clean], { strict: false })).toBe('1 passed, 0 failed, 0 warned, 0 skipped');
  });

  test('the whole report ends with the totals line', () => {
    const lines = formatConsoleReport([mixedResult()], { color: false, strict: false }).trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed, \d+ warned, \d+ skipped$/);
    expect(lines.filter((l) => l.includes('demo.a.'))).toHaveLength(6); // 4 checks + 2 reproduce lines
  });
});
