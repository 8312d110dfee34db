import type { CheckResult, CheckStatus, SuiteResult } from '../harness/results.js';
import { formatDuration, totalSummary, withoutTerminalControls } from './text.js';

export interface ConsoleStyle {
  /** ANSI colours: only for a terminal, and never when NO_COLOR is set. */
  readonly color: boolean;
}

/** Colour follows https://no-color.org: a non-empty NO_COLOR turns it off; pipes get none. */
export function shouldUseColor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
) {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '';
}

const ANSI = { green: 32, red: 31, yellow: 33, dim: 2, bold: 1 } as const;

function paint(style: ConsoleStyle, colour: keyof typeof ANSI, text: string): string {
  return style.color ? `\u001b[${ANSI[colour]}m${text}\u001b[0m` : text;
}

const MARK: Record<CheckStatus, { symbol: string; word: string; colour: keyof typeof ANSI }> = {
  pass: { symbol: '✓', word: 'PASS', colour: 'green' },
  fail: { symbol: '✗', word: 'FAIL', colour: 'red' },
  warn: { symbol: '!', word: 'WARN', colour: 'yellow' },
  skip: { symbol: '-', word: 'SKIP', colour: 'dim' },
};

const DETAIL_INDENT = '      ';

function indented(label: string, text: string): string[] {
  const lines = withoutTerminalControls(text).split('\n');
  const pad = ' '.repeat(label.length);
  return lines.map((line, i) => `${DETAIL_INDENT}${i === 0 ? label : pad}${line}`);
}

/**
 * One check: a line with status, id and duration; a failure or warning is followed by its
 * message, expected/actual and the reproduce line, a skip by its reason, all indented.
 */
export function formatCheck(result: CheckResult, style: ConsoleStyle): string {
  const mark = MARK[result.status];
  const head = `  ${paint(style, mark.colour, `${mark.symbol} ${mark.word}`)}  ${result.id}  ${paint(style, 'dim', formatDuration(result.durationMs))}`;
  const lines = [head];
  if (result.status === 'fail' || result.status === 'warn') {
    lines.push(...indented('', `${result.message || '(no message)'} [${result.clause}]`));
    if (result.expected !== undefined) lines.push(...indented('expected: ', result.expected));
    if (result.actual !== undefined) lines.push(...indented('actual:   ', result.actual));
    if (result.reproduce !== undefined) lines.push(...indented('reproduce: ', result.reproduce));
  } else if (result.status === 'skip' && result.message !== '') {
    lines.push(...indented('', result.message));
  }
  return lines.join('\n');
}

export interface RunHeader {
  readonly suite: string;
  readonly target: string;
  readonly seed: number;
  readonly runs: number;
  readonly full: boolean;
}

export function formatSuiteHeader(header: RunHeader, style: ConsoleStyle): string {
  const tier = header.full ? 'full tier' : 'quick tier';
  return `${paint(style, 'bold', header.suite)} against ${withoutTerminalControls(header.target)} (seed ${header.seed}, ${header.runs} runs per property, ${tier})`;
}

export function formatSuiteSummary(result: SuiteResult, style: ConsoleStyle): string {
  const { passed, failed, warned, skipped } = result.summary;
  const counts = `${passed} passed, ${failed} failed, ${warned} warned, ${skipped} skipped`;
  const verdict =
    failed > 0 ? paint(style, 'red', counts) : warned > 0 ? paint(style, 'yellow', counts) : counts;
  return `suite ${result.suite}: ${verdict} in ${formatDuration(result.durationMs)} (seed ${result.seed})`;
}

/**
 * The closing lines over all suites. The last one is exactly `N passed, N failed, N skipped`
 * and adds up to the number of checks run: a warning counts as passed, or as failed under
 * --strict (as in junit.xml); the line before says how many warned.
 */
export function formatTotals(results: readonly SuiteResult[], options: { strict: boolean }): string {
  const t = totalSummary(results);
  const passed = options.strict ? t.passed : t.passed + t.warned;
  const failed = options.strict ? t.failed + t.warned : t.failed;
  const last = `${passed} passed, ${failed} failed, ${t.skipped} skipped`;
  if (t.warned === 0) return last;
  const note = options.strict
    ? `${t.warned} warned (counted as failed under --strict)`
    : `${t.warned} warned (counted as passed; warnings fail only with --strict)`;
  return `${note}\n${last}`;
}

/** The whole console report of finished runs (the CLI prints the same pieces as they happen). */
export function formatConsoleReport(
  results: readonly SuiteResult[],
  options: ConsoleStyle & { strict: boolean },
): string {
  const blocks = results.map((r) =>
    [
      `${paint(options, 'bold', r.suite)} against ${withoutTerminalControls(r.target)}`,
      ...r.checks.map((c) => formatCheck(c, options)),
      formatSuiteSummary(r, options),
    ].join('\n'),
  );
  return `${[...blocks, formatTotals(results, options)].join('\n\n')}\n`;
}
