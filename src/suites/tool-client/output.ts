import { z } from 'zod';
import type { CommandRun } from '../../harness/run-command.js';

/** What a tool client prints on a protocol or transport failure (TARGETS.md, tool-client). */
export const ToolClientErrorOutput = z.looseObject({
  error: z.looseObject({ message: z.string() }),
});
export type ToolClientErrorOutput = z.infer<typeof ToolClientErrorOutput>;

/** One run of the client command, classified by the target contract. */
export type ToolClientOutcome =
  /** Exit 0 and stdout is one JSON value (expected: the tools/call result). */
  | { type: 'printed'; value: unknown }
  /** Non-zero exit and stdout is `{"error":{"message"}}`. */
  | { type: 'error'; message: string; exitCode: number | null }
  /** No exit within the budget. */
  | { type: 'hung'; reason: string }
  /** Anything else: unparseable stdout, an error object with exit 0, a crash without the error shape. */
  | { type: 'broken'; reason: string };

export function classifyToolClientRun(run: CommandRun): ToolClientOutcome {
  if (run.spawnError)
    return { type: 'broken', reason: `the command could not start: ${run.spawnError.message}` };
  if (run.timedOut) {
    return { type: 'hung', reason: `the command did not exit within ${Math.round(run.durationMs)} ms` };
  }
  const text = run.stdout.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      type: 'broken',
      reason: `stdout is not one JSON value (exit ${exitOf(run)}): ${abbreviate(run.stdout)}`,
    };
  }
  const asError = ToolClientErrorOutput.safeParse(value);
  if (run.exitCode === 0) {
    if (asError.success)
      return { type: 'broken', reason: `exit 0 but stdout is an error object: ${abbreviate(text)}` };
    return { type: 'printed', value };
  }
  if (!asError.success) {
    return {
      type: 'broken',
      reason: `exit ${exitOf(run)} but stdout is not {"error":{"message":...}}: ${abbreviate(text)}`,
    };
  }
  return { type: 'error', message: asError.data.error.message, exitCode: run.exitCode };
}

/** A line about the run for failure messages: exit status and the end of stderr. */
export function describeToolClientRun(run: CommandRun): string {
  const stderr = run.stderr.trim();
  const tail = stderr.length > 600 ? `...${stderr.slice(-600)}` : stderr;
  return `exit ${exitOf(run)}${run.timedOut ? ' (timed out)' : ''}${tail === '' ? '' : `; stderr: ${tail}`}`;
}

function exitOf(run: CommandRun): string {
  return run.exitCode === null ? `signal ${run.signal ?? 'none'}` : String(run.exitCode);
}

function abbreviate(s: string): string {
  return s.length <= 400 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 400))}... (${s.length} chars)`;
}
