import { CheckFailure, expectThat, NotExercised } from '../../harness/check.js';
import { type BashToolResult, BashToolResultLine } from '../../protocol/bash/index.js';
import { safeParseCut } from '../../protocol/first-bad-element.js';
import { DEFAULT_JSON_LIMITS, parseJsonBounded } from '../../protocol/json/index.js';
import { TextBlock } from '../../protocol/messages/index.js';
import { zodIssues } from '../../protocol/zod-issues.js';
import { stderrPart } from './preflight.js';
import type { SessionRun } from './session.js';

/** A line about the session for failure messages: answers, exit, end of stderr. */
export function describeSession(run: SessionRun): string {
  const parts = [`${printedLines(run)} for ${run.spec.lines.length} input line(s)`];
  if (run.spawnError) parts.push(`could not start: ${run.spawnError.message}`);
  if (run.budgetExceeded) parts.push(`killed after the session budget of ${run.spec.budgetMs} ms`);
  else if (!run.exitedOnEof) parts.push('did not exit after its stdin closed');
  else parts.push(`runner exit ${run.exitCode ?? `signal ${run.exitSignal}`}`);
  const stderr = run.stderr.trim();
  if (stderr !== '') parts.push(`stderr: ${stderr.length > 600 ? `...${stderr.slice(-600)}` : stderr}`);
  return parts.join('; ');
}

/** Every line the runner printed on stdout: the kept ones and those only counted (see SessionRun.droppedLines). */
export function linesPrinted(run: SessionRun): number {
  return run.outputs.length + run.droppedLines;
}

/** How many lines the runner printed, and how many of them the session kept when not all. */
function printedLines(run: SessionRun): string {
  const kept = run.outputs.length;
  if (run.droppedLines === 0) return `${kept} result line(s)`;
  return `${linesPrinted(run)} line(s) printed (the first ${kept} kept, the other ${run.droppedLines} only counted)`;
}

/**
 * A session in which the runner printed nothing at all: the same fault explains every
 * check that reads it, so reports print it once (with the runner's exit and stderr).
 */
function silentCause(run: SessionRun): { sharedCause?: string } {
  if (run.outputs.length > 0 || run.cutOff !== undefined) return {};
  const how = run.budgetExceeded
    ? 'was killed at the session budget'
    : !run.exitedOnEof
      ? 'did not exit after its stdin closed'
      : `exited ${run.exitCode ?? `on signal ${run.exitSignal}`}`;
  return { sharedCause: `the runner printed no line at all and ${how}${stderrPart(run)}` };
}

/**
 * How a failure shows a result line it cannot read. A line of a session that runs `env` may
 * hold the runner's environment (the user's, secrets included): wherever that answer landed
 * (a runner that misnumbers or drops answers moves it to another line), the failure says what
 * kind of thing arrived, not its text.
 */
export interface LineQuoting {
  /** Why the line's text is left out of a failure; absent, its first 400 characters are quoted. */
  readonly withheld?: string;
}

/** `text` (a line, a field of it) as a failure shows it: quoted, or its length and why it is not. */
function shown(text: string, quoting: LineQuoting, noun = 'a line'): string {
  if (quoting.withheld === undefined) return abbreviate(text);
  return `${noun} of ${text.length} characters, not quoted: ${quoting.withheld}`;
}

/** A tool_use_id a runner answered with: the harness's own ids are safe to quote, whatever the quoting. */
function shownId(run: SessionRun, id: string, quoting: LineQuoting): string {
  if (quoting.withheld === undefined) return JSON.stringify(id);
  const line = run.spec.lines.findIndex((l) => l.id === id);
  return line === -1 ? shown(id, quoting, 'an id') : `${JSON.stringify(id)} (input line ${line + 1}'s)`;
}

/** The stdout line answering input line `index`, parsed as JSON, or a failure saying why not. */
export function jsonAt(run: SessionRun, index: number, what: string, quoting: LineQuoting = {}): unknown {
  const line = run.outputs[index];
  if (line === undefined && run.cutOff !== undefined && index === run.outputs.length) {
    // The runner was writing its answer when the harness's kill ended the line: no rule bounds how
    // long a runner takes, so what it would have answered was not seen (neither a malformed line
    // nor a missing one).
    throw new NotExercised(
      `no whole result line for input line ${index + 1} (${what}): the runner had written ${run.cutOff.chars} characters of it when wirecheck killed the runner (${run.cutOff.why}), so its answer was not seen: ${describeSession(run)}`,
    );
  }
  if (line === undefined) {
    throw new CheckFailure(
      `no result line for input line ${index + 1} (${what}): ${describeSession(run)}`,
      'one JSON line per input line, in order',
      `${run.outputs.length} line(s)`,
      undefined,
      silentCause(run),
    );
  }
  // A result line holds at most 65536 bytes of output, each at most 6 characters escaped, or
  // that output as text blocks (one a byte: some 2 Mi characters): the default 16 Mi characters
  // leave a correct runner room to spare (a session keeps lines up to 64 MiB), and the default
  // depth leaves extra fields room to nest while zod's walk of the value stays shallow.
  const parsed = parseJsonBounded(line.text, DEFAULT_JSON_LIMITS);
  if (!parsed.ok) {
    throw new CheckFailure(
      parsed.reason === 'syntax'
        ? `stdout line ${index + 1} (${what}) is not JSON`
        : `stdout line ${index + 1} (${what}) is not read as JSON: ${parsed.message}`,
      'one JSON tool_result line per input line',
      shown(line.text, quoting),
    );
  }
  return parsed.value;
}

/**
 * The tool_result answering input line `index` (Runner contract 8), or a failure. Content as
 * text blocks and `is_error` false left out read as the result they mean.
 */
export function resultAt(
  run: SessionRun,
  index: number,
  what: string,
  quoting: LineQuoting = {},
): BashToolResult {
  const value = jsonAt(run, index, what, quoting);
  const { parsed, note } = safeParseCut(BashToolResultLine, value, 'content', TextBlock, 'text block');
  if (!parsed.success) {
    throw new CheckFailure(
      `result line ${index + 1} (${what}) is not a tool_result block: ${zodIssues(parsed.error)}${note}`,
      '{"type":"tool_result","tool_use_id":string,"content":string (or text blocks),"is_error":boolean (false when left out)}',
      shown(run.outputs[index]!.text, quoting),
    );
  }
  const id = run.spec.lines[index]?.id;
  expectThat(
    id === undefined || parsed.data.tool_use_id === id,
    `result line ${index + 1} (${what}) answers another tool_use`,
    `tool_use_id ${JSON.stringify(id)}`,
    `tool_use_id ${shownId(run, parsed.data.tool_use_id, quoting)}`,
  );
  return parsed.data;
}

export function expectIsError(result: BashToolResult, expected: boolean, what: string): void {
  expectThat(
    result.is_error === expected,
    `${what}: is_error is ${result.is_error}`,
    `is_error ${expected}`,
    `is_error ${result.is_error}; content ${abbreviate(result.content)}`,
  );
}

export function expectContent(result: BashToolResult, expected: string, what: string): void {
  expectThat(
    result.content === expected,
    `${what}: the content differs`,
    JSON.stringify(expected),
    JSON.stringify(result.content),
  );
}

/**
 * The result carries the output of a command that printed `stdout` (and nothing on stderr).
 * For the checks whose rule is not how output is assembled (ids and order, input handling,
 * restart, a harmless command not refused), a runner that drops the trailing line break, or
 * that frames the output in words of its own ("STDOUT:\n..."), shows the same output: the
 * runner.output checks judge the text itself, once. So a one-word output (each caller's is
 * unique to its command) is found in the text as a whole word: `line-1` not inside `line-10`,
 * so that answers swapped between lines still show. The command's own text must not hold that
 * word (`printing` in lines.ts): a runner that shows the command instead of running it would
 * seem to print it.
 */
export function expectCommandOutput(result: BashToolResult, stdout: string, what: string): void {
  const trimmed = stdout.replace(/\n+$/, '');
  expectThat(
    result.content === stdout || result.content === trimmed || holdsToken(result.content, trimmed),
    `${what}: the content is not the command's output`,
    trimmed === stdout
      ? JSON.stringify(stdout)
      : `${JSON.stringify(stdout)} (or ${JSON.stringify(trimmed)}, or a text holding ${JSON.stringify(trimmed)} as a word of its own)`,
    abbreviate(result.content),
  );
}

/** `token` (one word, no space) stands in `text` as a word of its own: no letter, digit, `_` or `-` against it. */
function holdsToken(text: string, token: string): boolean {
  if (token === '' || /\s/.test(token)) return false;
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`).test(text);
}

/**
 * How much of each end of a result text the wording patterns read. The notes they look for sit
 * at the ends (a timeout text first, a limit note after the kept output: docs/runner.md), and
 * a text a hostile runner builds to make a pattern backtrack must not stall the harness's event
 * loop (where no timeout can fire) however long the text is.
 */
export const NOTE_WINDOW_CHARS = 8 * 1024;

/** What of `text` the wording patterns read: all of it when short, else its first and last NOTE_WINDOW_CHARS. */
export function noteWindows(text: string): string[] {
  if (text.length <= 2 * NOTE_WINDOW_CHARS) return [text];
  return [text.slice(0, NOTE_WINDOW_CHARS), text.slice(-NOTE_WINDOW_CHARS)];
}

/** `pattern` (a wording: a note, a timeout text) matches near either end of a runner's `text`. */
export function mentions(pattern: RegExp, text: string): boolean {
  return noteWindows(text).some((window) => pattern.test(window));
}

export function expectMatches(result: BashToolResult, pattern: RegExp, what: string, wanted: string): void {
  expectThat(
    mentions(pattern, result.content),
    `${what}: the content does not ${wanted}`,
    String(pattern),
    abbreviate(result.content),
  );
}

/** A regex for `n` as a number of its own ("exit code 3", "3s", "(3)"), not a digit of a longer one. */
export function numberPattern(n: number): RegExp {
  return new RegExp(`(^|[^0-9.])${n}(\\.0+)?(?![0-9])`);
}

export function abbreviate(s: string): string {
  return s.length <= 400 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 400))}... (${s.length} chars)`;
}
