import { outputPart } from '../../harness/output-lines.js';
import type { SessionRun } from './session.js';

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
 * tested at all, or undefined when it answered with something shaped like a tool_result
 * line (whether that line is right is for the checks to say).
 */
export function preflightProblem(run: SessionRun): string | undefined {
  const start = cannotStart(run);
  if (start !== undefined) return start;
  const command = 'a plain tool_use line (`echo wirecheck-probe`)';
  if (run.outputs.length === 0) {
    const how = run.budgetExceeded
      ? `and did not exit within ${run.spec.budgetMs} ms`
      : run.exitedOnEof
        ? `and exited ${exitOf(run)}`
        : 'and did not exit after its stdin closed';
    return `answered nothing to ${command} ${how}${stderrPart(run)}`;
  }
  const shaped = run.outputs.find((line) => looksLikeToolResult(line.text));
  if (shaped === undefined) {
    const first = run.outputs[0]!.text;
    return `answered ${command} with ${quote(first)}${run.outputs.length > 1 ? ` (and ${run.outputs.length - 1} more line(s))` : ''}, which is not a tool_result JSON line: it does not speak the runner contract (one {"type":"tool_result",...} line per tool_use line)${stderrPart(run)}`;
  }
  return undefined;
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
