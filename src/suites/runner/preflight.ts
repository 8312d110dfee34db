import { outputPart } from '../../harness/output-lines.js';
import type { SessionRun } from './session.js';

/** The command of the preflight's one tool_use (openRunner sends it), and what it prints. */
const PREFLIGHT_COMMAND = 'echo wirecheck-probe';
const PROBE_OUTPUT = 'wirecheck-probe';

/**
 * Why a session shows that the runner command cannot be started at all (not that it
 * answered badly), or undefined: a spawn error, or sh's own "cannot execute" (126) or
 * "not found" (127) statuses with not a single line printed.
 */
export function cannotStart(run: SessionRun): string | undefined {
  if (run.spawnError) return `could not be started: ${run.spawnError.message}`;
  if ((run.exitCode === 126 || run.exitCode === 127) && run.outputs.length === 0) {
    return `could not be started by sh -c (exit ${run.exitCode}${stderrPart(run)})`;
  }
  return undefined;
}

/**
 * Why the preflight session (one plain `echo` tool_use) shows that the runner cannot be
 * tested at all, or undefined when it answered with exactly one line, shaped like a
 * tool_result line (whether that line is right is for the checks to say).
 *
 * Any other line on stdout is refused too, before or after the result, blank or not: the
 * target contract gives stdout exactly one JSON line per input line (logs go to stderr), and
 * every check reads result N at line N. A banner shifts every later answer one line, so each
 * check would fail citing a clause the runner may well keep; a line after the result cannot be
 * told apart, from one input, from a line after every result (the same shift from line 2 on).
 */
export function preflightProblem(run: SessionRun): string | undefined {
  const start = cannotStart(run);
  if (start !== undefined) return start;
  const command = `a plain tool_use line (\`${PREFLIGHT_COMMAND}\`)`;
  if (run.outputs.length === 0) {
    const how = run.budgetExceeded
      ? `and did not exit within ${run.spec.budgetMs} ms`
      : run.exitedOnEof
        ? `and exited ${exitOf(run)}`
        : 'and did not exit after its stdin closed';
    return `answered nothing to ${command} ${how}${stderrPart(run)}`;
  }
  const shaped = run.outputs.findIndex((line) => looksLikeToolResult(line.text));
  if (shaped === -1) {
    const first = run.outputs[0]!.text;
    return `answered ${command} with ${quote(first)}${run.outputs.length > 1 ? ` (and ${run.outputs.length - 1} more line(s))` : ''}, which is not a tool_result JSON line: it does not speak the runner contract (one {"type":"tool_result",...} line per tool_use line)${stderrPart(run)}`;
  }
  const onlyResults = `its stdout must carry only result lines, one per input line (logs go to stderr); it was given ${command}`;
  if (shaped > 0) {
    const before = run.outputs.slice(0, shaped).map((line) => line.text);
    const more = before.length > 1 ? ` (and ${before.length - 1} more line(s))` : '';
    return `printed ${shownLine(before[0]!)}${more} before its first result line: ${onlyResults}${stderrPart(run)}`;
  }
  const printed = run.outputs.length + run.droppedLines;
  if (printed > run.spec.lines.length) {
    const extra = run.outputs[1]?.text;
    // Not kept: a line past the bytes a session keeps is only counted.
    const after = extra === undefined ? `${printed - 1} line(s) too large to keep` : shownLine(extra);
    const more = printed > 2 && extra !== undefined ? ` (and ${printed - 2} more line(s))` : '';
    return `printed ${printed} lines for ${run.spec.lines.length} input line(s): after its result line came ${after}${more}: ${onlyResults}${stderrPart(run)}`;
  }
  return undefined;
}

/** A stray stdout line as a refusal shows it: a blank one by name, and the probe's own output for what it is. */
function shownLine(text: string): string {
  if (text === '') return 'a blank line';
  if (text.trim() === '') return `a blank line (${quote(text)})`;
  // The command's own output on the runner's stdout: the runner let the command inherit it.
  if (text === PROBE_OUTPUT)
    return `${quote(text)} (the probe command's own output: a command must not write to the runner's stdout)`;
  return quote(text);
}

/** A JSON object line with `"type": "tool_result"`: the runner speaks the contract, well or not. */
function looksLikeToolResult(text: string): boolean {
  if (text.length > 1 << 20) return false;
  try {
    const value: unknown = JSON.parse(text);
    return (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      (value as { type?: unknown }).type === 'tool_result'
    );
  } catch {
    return false;
  }
}

function exitOf(run: SessionRun): string {
  return run.exitCode === null ? `on signal ${run.exitSignal ?? 'none'}` : `with status ${run.exitCode}`;
}

/** `; stderr: <first lines>` when the runner wrote any, else `; nothing on stderr`. */
export function stderrPart(run: SessionRun): string {
  return outputPart('stderr', run.stderr);
}

function quote(s: string): string {
  return s.length <= 200 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 200))}... (${s.length} chars)`;
}
