import { z } from 'zod';
import { type BoundedRead, formatBytes, readBounded } from './bounded-read.js';
import { WirecheckError } from './errors.js';
import type { CheckResult, CheckStatus, SuiteResult } from './results.js';

/**
 * A baseline file lists expected failures, one per line: `suite:check-id`, whitespace, and
 * the reason (required: a baseline entry nobody can explain is how failures rot). Blank
 * lines and lines starting with `#` are ignored.
 *
 *     # runner: our sandbox has no PID namespace yet (TICKET-12)
 *     runner:runner.process-group.leftovers  kills only the direct child
 */
export const BaselineEntry = z.object({
  suite: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a suite name (letters, digits, . _ -)'),
  id: z.string().regex(/^\S+$/, 'a check id without spaces'),
  reason: z.string().trim().min(1, 'a reason after the check id'),
  /** 1-based line in the file, for messages. */
  line: z.number().int().min(1),
});
export type BaselineEntry = z.infer<typeof BaselineEntry>;

export interface Baseline {
  /** Where it came from (a path), for messages. */
  readonly source: string;
  readonly entries: readonly BaselineEntry[];
}

export type BaselineMark = NonNullable<CheckResult['baseline']>;

function baselineError(source: string, line: number | undefined, message: string): WirecheckError {
  const where = line === undefined ? source : `${source}:${line}`;
  return new WirecheckError('WC_BASELINE', `baseline ${where}: ${message}`);
}

/** Parse the text of a baseline file; any bad line or a duplicate entry is a WC_BASELINE error. */
export function parseBaseline(text: string, source: string): Baseline {
  const entries: BaselineEntry[] = [];
  const seen = new Map<string, number>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = /^([^:\s]*):(\S*)(?:\s+(.*))?$/.exec(trimmed);
    if (match === null) {
      throw baselineError(source, line, `expected "suite:check-id  reason", got ${JSON.stringify(trimmed)}`);
    }
    const parsed = BaselineEntry.safeParse({ suite: match[1], id: match[2], reason: match[3] ?? '', line });
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
      throw baselineError(source, line, `expected "suite:check-id  reason": ${problems.join('; ')}`);
    }
    const key = `${parsed.data.suite}:${parsed.data.id}`;
    const first = seen.get(key);
    if (first !== undefined) throw baselineError(source, line, `${key} is already listed on line ${first}`);
    seen.set(key, line);
    entries.push(parsed.data);
  }
  return { source, entries };
}

/**
 * Bytes a baseline file may have: one line per listed check, a few hundred of them at most,
 * is some tens of KiB; a larger file is not a baseline.
 */
export const BASELINE_MAX_BYTES = 1024 * 1024;

/** How long a baseline given as a pipe (`--baseline <(...)`) may take to be written and closed. */
export const BASELINE_PIPE_DEADLINE_MS = 10_000;

export async function readBaseline(path: string): Promise<Baseline> {
  const cannot = (reason: string, cause?: unknown) =>
    new WirecheckError('WC_BASELINE', `cannot read the baseline file ${path}: ${reason}`, { cause });
  let read: BoundedRead;
  try {
    read = await readBounded(path, {
      maxBytes: BASELINE_MAX_BYTES,
      pipeDeadlineMs: BASELINE_PIPE_DEADLINE_MS,
    });
  } catch (e) {
    throw cannot(e instanceof Error ? e.message : String(e), e);
  }
  if (read.kind === 'not-a-file') throw cannot(`expected a regular file or a pipe, found ${read.what}`);
  if (read.kind === 'too-large') {
    throw cannot(
      `it is at least ${formatBytes(read.bytes)}, more than the ${formatBytes(BASELINE_MAX_BYTES)} a baseline may have`,
    );
  }
  if (read.kind === 'timed-out') {
    throw cannot(`the pipe was not written and closed within ${read.afterMs / 1000} s`);
  }
  return parseBaseline(read.text, path);
}

/**
 * Every entry must name a registered suite and one of its checks: a typo, or a check that
 * wirecheck renamed or dropped, would otherwise never match and never go stale.
 */
export function assertBaselineNamesKnownChecks(
  baseline: Baseline,
  suites: readonly { name: string; checks: readonly { id: string }[] }[],
): void {
  for (const entry of baseline.entries) {
    const suite = suites.find((s) => s.name === entry.suite);
    if (suite === undefined) {
      const names = suites.map((s) => s.name).join(', ');
      throw baselineError(baseline.source, entry.line, `no suite named "${entry.suite}" (suites: ${names})`);
    }
    if (!suite.checks.some((c) => c.id === entry.id)) {
      throw baselineError(
        baseline.source,
        entry.line,
        `suite ${entry.suite} has no check ${entry.id}: remove the entry (ids are listed by \`wirecheck list ${entry.suite}\`)`,
      );
    }
  }
}

/** Whether a status fails the run: a failure, or a warning under --strict. */
export function countsAsFailure(status: CheckStatus, strict: boolean): boolean {
  return status === 'fail' || (strict && status === 'warn');
}

/**
 * A check's standing against the baseline: listed and failing is an expected failure;
 * listed and passing (or warning, when warnings do not fail the run) is a stale entry, or,
 * for a property-based check, not reproduced (see markWithReason); a listed check that was
 * skipped proved nothing either way and is left unmarked, and so is one whose failure cut the
 * run short (see cutTheRunShort).
 */
export function baselineMarkOf(
  check: Pick<CheckResult, 'suite' | 'id' | 'status' | 'targetGone' | 'budgetUsedUp' | 'runs'>,
  baseline: Baseline | undefined,
  strict: boolean,
): BaselineMark | undefined {
  const entry = baseline?.entries.find((e) => e.suite === check.suite && e.id === check.id);
  return entry === undefined ? undefined : markWithReason(check, entry.reason, strict);
}

/**
 * Whether a check failed because the run could not go on (the target went away, or the
 * suite's time budget ran out, while it ran): the checks after it were not run. Such a
 * failure stays a failure even for a listed check: the entry excuses that check's known
 * fault, not a run that judged only part of the suite, and marking it expected would show
 * every report green (junit.xml, report.html, the totals) over checks never run.
 */
function cutTheRunShort(check: Pick<CheckResult, 'targetGone' | 'budgetUsedUp'>): boolean {
  return check.targetGone === true || check.budgetUsedUp === true;
}

/**
 * A property-based check (one with `runs`) judges the cases its seed generates: a fault that
 * shows for one input in sixty fails with some seeds and passes with others, the server
 * unchanged. Its pass under a baseline entry says only that this seed did not hit the fault,
 * so it is `not-reproduced` (a warning that does not fail the run, not even under --strict,
 * which would make CI's colour a draw of the seed); the entry is stale only if the check
 * also passes with the seed it failed with. A deterministic check that passes is `stale`.
 */
function markWithReason(
  check: Pick<CheckResult, 'status' | 'targetGone' | 'budgetUsedUp' | 'runs'>,
  reason: string,
  strict: boolean,
): BaselineMark | undefined {
  if (check.status === 'skip' || cutTheRunShort(check)) return undefined;
  if (countsAsFailure(check.status, strict)) return { status: 'expected-failure', reason };
  return { status: check.runs === undefined ? 'stale' : 'not-reproduced', reason };
}

export function markCheck(check: CheckResult, baseline: Baseline | undefined, strict: boolean): CheckResult {
  const mark = baselineMarkOf(check, baseline, strict);
  return mark === undefined ? check : { ...check, baseline: mark };
}

export function applyBaseline(
  result: SuiteResult,
  baseline: Baseline | undefined,
  strict: boolean,
): SuiteResult {
  if (baseline === undefined) return result;
  return { ...result, checks: result.checks.map((c) => markCheck(c, baseline, strict)) };
}

/**
 * The baseline marks of a result decided again under `strict`, from the reasons the marks
 * carry: merge-reports judges shards that each decided theirs under their own --strict (a
 * warning is an expected failure under --strict, a stale entry without it).
 */
export function remarkBaseline(result: SuiteResult, strict: boolean): SuiteResult {
  const checks = result.checks.map((check): CheckResult => {
    if (check.baseline === undefined) return check;
    const { baseline, ...unmarked } = check;
    const mark = markWithReason(check, baseline.reason, strict);
    return mark === undefined ? unmarked : { ...unmarked, baseline: mark };
  });
  return { ...result, checks };
}

/** Whether a check fails the run, the baseline taken into account. */
export function failsRun(check: Pick<CheckResult, 'status' | 'baseline'>, strict: boolean): boolean {
  if (check.baseline?.status === 'stale') return true;
  if (check.baseline?.status === 'expected-failure') return false;
  return countsAsFailure(check.status, strict);
}

/** Exit status of finished runs: 1 when a check fails the run (see failsRun), else 0. */
export function verdictOf(results: readonly SuiteResult[], strict: boolean): 0 | 1 {
  return results.some((r) => cutShort(r) || r.checks.some((c) => failsRun(c, strict))) ? 1 : 0;
}

/**
 * Whether the run stopped early and left checks not run: the suite's time budget ran out
 * between two checks, or the run was interrupted (a signal, a library user's AbortSignal), or
 * any other stop. No check need have failed, and yet the run did not judge the suite.
 */
export function cutShort(result: Pick<SuiteResult, 'stopped' | 'checks'>): boolean {
  return result.stopped !== undefined && result.checks.some((c) => c.skipKind === 'not-run');
}

export interface BaselineCounts {
  readonly expectedFailures: number;
  readonly stale: number;
  /** Listed property-based checks that passed with this run's seed (see markWithReason). */
  readonly notReproduced: number;
}

export function baselineCounts(results: readonly SuiteResult[]): BaselineCounts {
  let expectedFailures = 0;
  let stale = 0;
  let notReproduced = 0;
  for (const r of results) {
    for (const c of r.checks) {
      if (c.baseline?.status === 'expected-failure') expectedFailures++;
      else if (c.baseline?.status === 'stale') stale++;
      else if (c.baseline?.status === 'not-reproduced') notReproduced++;
    }
  }
  return { expectedFailures, stale, notReproduced };
}
