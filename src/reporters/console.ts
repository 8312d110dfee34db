import { baselineCounts, failsRun } from '../harness/baseline.js';
import type { CheckResult, CheckStatus, SuiteResult } from '../harness/results.js';
import { formatShard, type Shard } from '../harness/shard.js';
import { formatDuration, totalSummary, withoutTerminalControls } from './text.js';

export interface ConsoleStyle {
  /** ANSI colours: only for a terminal, and never when NO_COLOR is set. */
  readonly color: boolean;
}

/**
 * Colour follows https://no-color.org: a non-empty NO_COLOR turns it off, whatever else is
 * set. Otherwise a terminal gets colour and a pipe none, unless FORCE_COLOR is set (to
 * anything but `0` or `false`), which turns it on for a pipe too (CI logs that render ANSI).
 */
export function shouldUseColor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
) {
  if ((env.NO_COLOR ?? '') !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return stream.isTTY === true;
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

const BASELINE_MARK = {
  'expected-failure': { symbol: '~', word: 'EXPECTED FAILURE', colour: 'yellow' },
  stale: { symbol: '✗', word: 'STALE', colour: 'red' },
} as const;

/** The status shown: a baseline mark replaces the plain status word. */
function markOf(result: CheckResult): { symbol: string; word: string; colour: keyof typeof ANSI } {
  return result.baseline === undefined ? MARK[result.status] : BASELINE_MARK[result.baseline.status];
}

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
  const mark = markOf(result);
  const head = `  ${paint(style, mark.colour, `${mark.symbol} ${mark.word}`)}  ${result.id}  ${paint(style, 'dim', formatDuration(result.durationMs))}`;
  const lines = [head];
  if (result.baseline?.status === 'stale') {
    const now = result.status === 'warn' ? 'only warns' : 'passes';
    lines.push(
      ...indented(
        '',
        `listed in the baseline as an expected failure (${result.baseline.reason}), but it ${now} now: remove the entry ${result.suite}:${result.id}`,
      ),
    );
  } else if (result.baseline?.status === 'expected-failure') {
    lines.push(...indented('baseline: ', result.baseline.reason));
  }
  if (result.status === 'fail' || result.status === 'warn') {
    lines.push(...indented('', `${result.message || '(no message)'} [${result.clause}]`));
    if (result.expected !== undefined) lines.push(...indented('expected: ', result.expected));
    if (result.actual !== undefined) lines.push(...indented('actual:   ', result.actual));
    if (result.reproduce !== undefined) lines.push(...indented('reproduce: ', result.reproduce));
    if (result.counterexample !== undefined) {
      lines.push(...indented('counterexample: ', result.counterexample.file));
      lines.push(...indented('replay:    ', result.counterexample.replay));
    }
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
  readonly shard?: Shard;
}

export function formatSuiteHeader(header: RunHeader, style: ConsoleStyle): string {
  const tier = header.full ? 'full tier' : 'quick tier';
  const shard = header.shard === undefined ? '' : `, shard ${formatShard(header.shard)}`;
  return `${paint(style, 'bold', header.suite)} against ${withoutTerminalControls(header.target)} (seed ${header.seed}, ${header.runs} runs per property, ${tier}${shard})`;
}

export function formatSuiteSummary(result: SuiteResult, style: ConsoleStyle): string {
  const { passed, failed, warned, skipped } = result.summary;
  const counts = `${passed} passed, ${failed} failed, ${warned} warned, ${skipped} skipped`;
  const verdict =
    failed > 0 ? paint(style, 'red', counts) : warned > 0 ? paint(style, 'yellow', counts) : counts;
  const { expectedFailures, stale } = baselineCounts([result]);
  const marks = [
    ...(expectedFailures > 0
      ? [`${expectedFailures} expected ${expectedFailures === 1 ? 'failure' : 'failures'}`]
      : []),
    ...(stale > 0 ? [`${stale} stale baseline ${stale === 1 ? 'entry' : 'entries'}`] : []),
  ];
  const baseline = marks.length === 0 ? '' : ` (${marks.join(', ')})`;
  const shard = result.shard === undefined ? '' : `, shard ${formatShard(result.shard)}`;
  return `suite ${result.suite}: ${verdict}${baseline} in ${formatDuration(result.durationMs)} (seed ${result.seed}${shard})`;
}

/**
 * The closing lines over all suites. The last one is exactly `N passed, N failed, N skipped`
 * and adds up to the number of checks run: a warning counts as passed, or as failed under
 * --strict (as in junit.xml); an expected failure of the baseline counts as skipped and a
 * stale baseline entry as failed, so `failed` is 0 exactly when the run passes. The lines
 * before say how many warned, were expected failures or were stale.
 */
export function formatTotals(results: readonly SuiteResult[], options: { strict: boolean }): string {
  const t = totalSummary(results);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const c of results.flatMap((r) => r.checks)) {
    if (failsRun(c, options.strict)) failed++;
    else if (c.status === 'skip' || c.baseline?.status === 'expected-failure') skipped++;
    else passed++;
  }
  const notes: string[] = [];
  if (t.warned > 0) {
    notes.push(
      options.strict
        ? `${t.warned} warned (counted as failed under --strict)`
        : `${t.warned} warned (counted as passed; warnings fail only with --strict)`,
    );
  }
  const { expectedFailures, stale } = baselineCounts(results);
  if (expectedFailures > 0) {
    notes.push(
      `${expectedFailures} expected ${expectedFailures === 1 ? 'failure' : 'failures'} (listed in the baseline; counted as skipped)`,
    );
  }
  if (stale > 0) {
    notes.push(
      `${stale} stale baseline ${stale === 1 ? 'entry' : 'entries'} (the check passes now; counted as failed until removed from the baseline)`,
    );
  }
  return [...notes, `${passed} passed, ${failed} failed, ${skipped} skipped`].join('\n');
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
