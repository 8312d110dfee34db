import { baselineCounts, failsRun } from '../harness/baseline.js';
import type { CheckResult, SuiteResult, Summary } from '../harness/results.js';
import { runName } from '../harness/run-name.js';
import { formatShard, type Shard } from '../harness/shard.js';
import { startsAtOnce } from '../harness/target-starts.js';
import {
  cappedRuns,
  causeGroups,
  groupHeadline,
  isGroupable,
  notRunChecks,
  notRunReasonAfterCause,
} from './grouping.js';
import { formatDuration, totalSummary, withoutTerminalControls } from './text.js';
import { unjudgedStop } from './unjudged.js';
import { wrapWords } from './wrap.js';

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
type Colour = keyof typeof ANSI;
interface Mark {
  readonly symbol: string;
  readonly word: string;
  readonly colour: Colour;
}

function paint(style: ConsoleStyle, colour: Colour, text: string): string {
  return style.color ? `\u001b[${ANSI[colour]}m${text}\u001b[0m` : text;
}

const MARK = {
  pass: { symbol: '✓', word: 'PASS', colour: 'green' },
  fail: { symbol: '✗', word: 'FAIL', colour: 'red' },
  warn: { symbol: '!', word: 'WARN', colour: 'yellow' },
  skip: { symbol: '-', word: 'SKIP', colour: 'dim' },
  'not-exercised': { symbol: '?', word: 'NOT EXERCISED', colour: 'yellow' },
  'not-run': { symbol: '·', word: 'NOT RUN', colour: 'dim' },
} as const satisfies Record<string, Mark>;

const BASELINE_MARK = {
  'expected-failure': { symbol: '~', word: 'EXPECTED FAILURE', colour: 'yellow' },
  stale: { symbol: '✗', word: 'STALE', colour: 'red' },
  'not-reproduced': { symbol: '!', word: 'NOT REPRODUCED', colour: 'yellow' },
} as const satisfies Record<string, Mark>;

/** The status shown: a baseline mark replaces the plain status word; a skip says its kind. */
function markOf(result: CheckResult): Mark {
  if (result.baseline !== undefined) return BASELINE_MARK[result.baseline.status];
  if (result.status === 'skip' && (result.skipKind === 'not-exercised' || result.skipKind === 'not-run')) {
    return MARK[result.skipKind];
  }
  return MARK[result.status];
}

function markText(style: ConsoleStyle, mark: Mark): string {
  return paint(style, mark.colour, `${mark.symbol} ${mark.word}`);
}

const DETAIL_INDENT = '      ';

function indented(label: string, text: string): string[] {
  const lines = withoutTerminalControls(text).split('\n');
  const pad = ' '.repeat(label.length);
  return lines.map((line, i) => `${DETAIL_INDENT}${i === 0 ? label : pad}${line}`);
}

/** What formatCheck knows of the run beyond the result. */
export interface CheckContext {
  /** `--runs` of the run: a check that ran fewer says so on its line. */
  readonly askedRuns?: number;
}

/** ` [full]` and the runs note of the check's line. */
function lineNotes(result: CheckResult, context: CheckContext): string {
  const notes: string[] = [];
  if (result.tier === 'full') notes.push('[full]');
  if (result.runs !== undefined && context.askedRuns !== undefined && result.runs < context.askedRuns) {
    notes.push(`[${result.runs} runs per property, capped from ${context.askedRuns}]`);
  }
  return notes.length === 0 ? '' : `  ${notes.join(' ')}`;
}

/**
 * One check: a line with status, id, duration and notes ([full], capped runs); a failure or
 * warning is followed by its message, every failing label, expected/actual and the reproduce
 * line, a skip by its reason, all indented.
 */
export function formatCheck(result: CheckResult, style: ConsoleStyle, context: CheckContext = {}): string {
  const head = `  ${markText(style, markOf(result))}  ${result.id}  ${paint(style, 'dim', formatDuration(result.durationMs))}${lineNotes(result, context)}`;
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
  } else if (result.baseline?.status === 'not-reproduced') {
    const now = result.status === 'warn' ? 'only warns' : 'passes';
    lines.push(
      ...indented(
        '',
        `listed in the baseline as an expected failure (${result.baseline.reason}), but it ${now} with this run's seed: its verdict depends on generated input, so the failure was not reproduced; the entry is stale only if the check also passes with the seed it failed with (a warning: the run does not fail for it)`,
      ),
    );
  }
  if (result.status === 'fail' || result.status === 'warn') {
    const labels = result.labels ?? [];
    // A labelled property's message repeats every label; each gets its own line instead.
    const message = labels.length > 1 ? `${labels.length} labels fail` : result.message || '(no message)';
    lines.push(...indented('', `${message} [${result.clause}]`));
    if (labels.length > 1) for (const l of labels) lines.push(...indented(`[${l.label}] `, l.message));
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
  /** The tiers of the checks that run (from the run's plan); without it, `full` decides. */
  readonly tiers?: readonly ('quick' | 'full')[];
  readonly shard?: Shard;
  /** Checks run at once; the header names it when above 1. */
  readonly jobs?: number;
}

function tierText(header: RunHeader): string {
  const tiers = header.tiers ?? [header.full ? 'full' : 'quick'];
  if (tiers.length === 0) return 'no checks';
  return tiers.length === 1 ? `${tiers[0]} tier` : `${tiers.join(' and ')} tiers`;
}

export function formatSuiteHeader(header: RunHeader, style: ConsoleStyle): string {
  const shard = header.shard === undefined ? '' : `, shard ${formatShard(header.shard)}`;
  const jobs = (header.jobs ?? 1) > 1 ? `, ${header.jobs} checks at once` : '';
  return `${paint(style, 'bold', header.suite)} against ${withoutTerminalControls(header.target)} (seed ${header.seed}, ${header.runs} runs per property, ${tierText(header)}${shard}${jobs})`;
}

/** `a, b, c` wrapped under a label, indented as details are. */
function listLines(label: string, ids: readonly string[]): string[] {
  const pad = DETAIL_INDENT + ' '.repeat(label.length);
  return wrapWords(ids.join(', '), 100 - pad.length).map(
    (line, i) => `${i === 0 ? DETAIL_INDENT + label : pad}${line}`,
  );
}

/** Failures sharing one cause, as one entry: the cause once, then the checks it explains. */
export function formatCauseGroup(
  group: { cause: string; checks: readonly CheckResult[] },
  style: ConsoleStyle,
): string {
  const fails = group.checks.some((c) => c.status === 'fail');
  const [first = '', ...rest] = withoutTerminalControls(group.cause).split('\n');
  const head = `  ${markText(style, fails ? MARK.fail : MARK.warn)}  ${groupHeadline(group)}: ${first}`;
  const reproduce = group.checks.find((c) => c.reproduce !== undefined)?.reproduce;
  return [
    head,
    ...rest.map((line) => `${DETAIL_INDENT}${line}`),
    ...listLines(
      'checks: ',
      group.checks.map((c) => c.id),
    ),
    ...groupExpectations(group.checks),
    ...(reproduce === undefined ? [] : indented('reproduce one: ', reproduce)),
  ].join('\n');
}

/** Distinct expected/actual pairs a group shows; the rest are in the reports. */
const GROUP_PAIRS_SHOWN = 5;

/**
 * The expected and actual values of a group's checks: once when every check that has them
 * has the same, else each distinct pair with the ids of its checks (at most
 * GROUP_PAIRS_SHOWN pairs; every check keeps its own in results.json and junit.xml).
 */
function groupExpectations(checks: readonly CheckResult[]): string[] {
  const pairs = new Map<string, { expected?: string; actual?: string; ids: string[] }>();
  for (const c of checks) {
    if (c.expected === undefined && c.actual === undefined) continue;
    const key = JSON.stringify([c.expected, c.actual]);
    const pair = pairs.get(key);
    if (pair !== undefined) pair.ids.push(c.id);
    else
      pairs.set(key, {
        ...(c.expected === undefined ? {} : { expected: c.expected }),
        ...(c.actual === undefined ? {} : { actual: c.actual }),
        ids: [c.id],
      });
  }
  const all = [...pairs.values()];
  const lines: string[] = [];
  for (const pair of all.slice(0, GROUP_PAIRS_SHOWN)) {
    const of = all.length === 1 ? '' : ` (${pair.ids.join(', ')})`;
    if (pair.expected !== undefined) lines.push(...indented(`expected${of}: `, pair.expected));
    if (pair.actual !== undefined) lines.push(...indented(`actual${of}:   `, pair.actual));
  }
  if (all.length > GROUP_PAIRS_SHOWN) {
    lines.push(
      `${DETAIL_INDENT}(${all.length - GROUP_PAIRS_SHOWN} more expected/actual pairs: each check's own are in results.json and junit.xml)`,
    );
  }
  return lines;
}

/** The checks a run did not reach, as one entry with the reason said once. */
export function formatNotRun(checks: readonly CheckResult[], reason: string, style: ConsoleStyle): string {
  const head = `  ${markText(style, MARK['not-run'])}  ${checks.length === 1 ? `${checks[0]?.id}: ` : `${checks.length} checks: `}${withoutTerminalControls(reason)}`;
  return checks.length === 1
    ? head
    : [
        head,
        ...listLines(
          'checks: ',
          checks.map((c) => c.id),
        ),
      ].join('\n');
}

/** The line naming the checks that ran fewer property runs than asked. */
export function formatCappedRuns(result: Pick<SuiteResult, 'runs' | 'checks'>): string | undefined {
  const capped = cappedRuns(result);
  if (capped === undefined) return undefined;
  const range =
    capped.lowest === capped.highest ? `${capped.lowest}` : `${capped.lowest} to ${capped.highest}`;
  const n = capped.checks.length;
  return [
    `  property runs: ${n} ${n === 1 ? 'check caps its' : 'checks cap their'} runs below the ${result.runs} asked (${range} per property; each run starts the target)`,
    ...listLines(
      'checks: ',
      capped.checks.map((c) => c.id),
    ),
  ].join('\n');
}

/**
 * `messages-client: 312 client starts, 41 ms each`: the target processes a run started and
 * what one bare start of the command costs, so a user sees when the suite's time is their
 * target's start-up. Undefined when the run started none.
 */
export function formatTargetStarts(
  result: Pick<SuiteResult, 'suite' | 'variant' | 'targetStarts' | 'durationMs' | 'jobs'>,
) {
  const starts = result.targetStarts;
  if (starts === undefined || starts.count === 0) return undefined;
  const head = `  ${runName(result)}: ${starts.count} ${starts.what} ${starts.count === 1 ? 'start' : 'starts'}`;
  if (starts.bareStartMs === undefined) return head;
  const each = `${head}, ${formatDuration(starts.bareStartMs)} each (a bare start and exit of the command)`;
  // Start-up alone would fill a good part of the suite's time on the jobs it ran: say how much,
  // and where to look.
  const share = (starts.count * starts.bareStartMs) / startsAtOnce(result) / Math.max(1, result.durationMs);
  if (share < START_SHARE_SHOWN) return each;
  const remedy = starts.fasterStart ?? 'docs/performance.md: a target that starts fast';
  const much = share >= 0.5 ? 'most' : `about ${Math.round(share * 100)}%`;
  return `${each}: ${much} of the suite's time is starting the ${starts.what} (${remedy})`;
}

/**
 * From this share of a suite's time, by its bare starts, the summary names the start-up and
 * its remedy. A third, not a half: the estimate counts a bare start only, and a client that
 * loads most of its code at its first request starts slower in a case (the official SDK's
 * adapter: 44% of its run by the estimate, 85% by what keeping it warm saved).
 */
const START_SHARE_SHOWN = 1 / 3;

export interface SuitePrinterOptions extends CheckContext {
  /** Print passing checks too (failures, warnings and skips are always printed). */
  readonly verbose: boolean;
}

/**
 * Prints one suite's checks as they finish, except what is better said once at the end:
 * failures that share a cause (one entry per cause) and the checks not run (one entry, the
 * reason once). `add` returns the text to print now, if any; `end` the rest, before the
 * suite's summary line.
 */
export interface SuitePrinter {
  add(result: CheckResult): string | undefined;
  end(result: SuiteResult): string[];
}

export function createSuitePrinter(style: ConsoleStyle, options: SuitePrinterOptions): SuitePrinter {
  const held: CheckResult[] = [];
  return {
    add(result) {
      if (isGroupable(result) || (result.status === 'skip' && result.skipKind === 'not-run')) {
        held.push(result);
        return undefined;
      }
      if (!options.verbose && result.status === 'pass' && result.baseline === undefined) return undefined;
      return formatCheck(result, style, options);
    },
    end(result) {
      const out: string[] = [];
      const groups = causeGroups(held);
      const inGroup = new Set(groups.flatMap((g) => g.checks));
      // A cause that explains one check only: that check is shown as any other.
      for (const c of held) {
        if (isGroupable(c) && !inGroup.has(c)) out.push(formatCheck(c, style, options));
      }
      for (const g of groups) out.push(formatCauseGroup(g, style));
      const notRun = notRunChecks(held);
      if (notRun.length > 0)
        out.push(formatNotRun(notRun, notRunReasonAfterCause(result) ?? 'the run stopped', style));
      const capped = formatCappedRuns(result);
      if (capped !== undefined) out.push(capped);
      const starts = formatTargetStarts(result);
      if (starts !== undefined) out.push(starts);
      return out;
    },
  };
}

/** `3 skipped` with its kinds when some judged nothing: `3 skipped (1 not exercised, 1 not run)`. */
function skippedText(s: Summary): string {
  const kinds = [
    ...((s.notExercised ?? 0) > 0 ? [`${s.notExercised} not exercised`] : []),
    ...((s.notRun ?? 0) > 0 ? [`${s.notRun} not run`] : []),
  ];
  return `${s.skipped} skipped${kinds.length === 0 ? '' : ` (${kinds.join(', ')})`}`;
}

export function formatSuiteSummary(result: SuiteResult, style: ConsoleStyle): string {
  const { passed, failed, warned } = result.summary;
  const counts = `${passed} passed, ${failed} failed, ${warned} warned, ${skippedText(result.summary)}`;
  const verdict =
    failed > 0 ? paint(style, 'red', counts) : warned > 0 ? paint(style, 'yellow', counts) : counts;
  const { expectedFailures, stale, notReproduced } = baselineCounts([result]);
  const marks = [
    ...(expectedFailures > 0
      ? [`${expectedFailures} expected ${expectedFailures === 1 ? 'failure' : 'failures'}`]
      : []),
    ...(stale > 0 ? [`${stale} stale baseline ${stale === 1 ? 'entry' : 'entries'}`] : []),
    ...(notReproduced > 0
      ? [`${notReproduced} expected ${notReproduced === 1 ? 'failure' : 'failures'} not reproduced`]
      : []),
  ];
  const baseline = marks.length === 0 ? '' : ` (${marks.join(', ')})`;
  const shard = result.shard === undefined ? '' : `, shard ${formatShard(result.shard)}`;
  return `suite ${runName(result)}: ${verdict}${baseline} in ${formatDuration(result.durationMs)} (seed ${result.seed}${shard})`;
}

/**
 * The closing lines over all suites. The last one is exactly `N passed, N failed, N warned,
 * N skipped` and adds up to the number of checks: `warned` counts the warnings that do not
 * fail the run (under --strict they are counted as failed, as in junit.xml); an expected
 * failure of the baseline counts as skipped and a stale baseline entry as failed, so
 * `failed` is 0 exactly when every check judged passes the run. The lines before say what else
 * to know: warnings under --strict, skips that judged nothing, baseline marks, a suite cut
 * short by its time budget (which fails the run with no check failed).
 */
export function formatTotals(results: readonly SuiteResult[], options: { strict: boolean }): string {
  const t = totalSummary(results);
  let passed = 0;
  let warned = 0;
  let failed = 0;
  let skipped = 0;
  for (const c of results.flatMap((r) => r.checks)) {
    if (failsRun(c, options.strict)) failed++;
    else if (c.status === 'skip' || c.baseline?.status === 'expected-failure') skipped++;
    else if (c.status === 'warn') warned++;
    else passed++;
  }
  const notes: string[] = [];
  if (options.strict && t.warned > 0) notes.push(`${t.warned} warned (counted as failed under --strict)`);
  const meanings = [
    ...((t.notExercised ?? 0) > 0
      ? ['not exercised: the check ran, but the target gave it nothing to judge']
      : []),
    ...((t.notRun ?? 0) > 0 ? ['not run: the run stopped before the check'] : []),
  ];
  if (meanings.length > 0) notes.push(`${skippedText(t)}; ${meanings.join('; ')}`);
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
  notes.push(...results.flatMap(notReproducedLine));
  notes.push(...results.flatMap(cutShortLine));
  return [...notes, `${passed} passed, ${failed} failed, ${warned} warned, ${skipped} skipped`].join('\n');
}

/**
 * The warning for listed property-based checks that passed with this run's seed, naming the
 * seed: that seed may only have missed the failure, so the entry is not called stale.
 */
function notReproducedLine(result: SuiteResult): string[] {
  const listed = result.checks.filter((c) => c.baseline?.status === 'not-reproduced');
  if (listed.length === 0) return [];
  const names = listed.map((c) => `${c.suite}:${c.id}`).join(', ');
  const one = listed.length === 1;
  return [
    `warning: ${listed.length} expected ${one ? 'failure' : 'failures'} not reproduced with seed ${result.seed} (${names}): ${one ? 'a property-based check' : 'property-based checks'} listed in the baseline passed with this seed, which may only have missed the failure; an entry is stale only if its check also passes with the seed it failed with (not counted as failed)`,
  ];
}

/**
 * A run the suite's time budget stopped between two checks: no check failed, and yet it fails
 * the run, which `0 failed` alone would hide. (An interrupt or a harness error says so where
 * the run stops.)
 */
function cutShortLine(result: SuiteResult): string[] {
  const stop = unjudgedStop(result);
  if (stop?.kind !== 'budget') return [];
  const notRun = notRunChecks(result.checks).length;
  const reason = withoutTerminalControls(stop.message);
  return [
    `suite ${runName(result)} was cut short (${reason}): ${notRun} of its ${result.checks.length} checks not run, which fails the run`,
  ];
}

/** The whole console report of finished runs (the CLI prints the same pieces as they happen). */
export function formatConsoleReport(
  results: readonly SuiteResult[],
  options: ConsoleStyle & { strict: boolean; verbose?: boolean },
): string {
  const blocks = results.map((r) => {
    const printer = createSuitePrinter(options, {
      verbose: options.verbose ?? true,
      ...(r.runs === undefined ? {} : { askedRuns: r.runs }),
    });
    const lines = r.checks.map((c) => printer.add(c)).filter((l) => l !== undefined);
    return [
      `${paint(options, 'bold', runName(r))} against ${withoutTerminalControls(r.target)}`,
      ...(r.error === undefined
        ? []
        : [`  the target could not be run: ${withoutTerminalControls(r.error.message)}`]),
      ...lines,
      ...printer.end(r),
      formatSuiteSummary(r, options),
    ].join('\n');
  });
  return `${[...blocks, formatTotals(results, options)].join('\n\n')}\n`;
}
