import type { z } from 'zod';
import { parseJsonBounded } from '../protocol/json/index.js';
import { headAndTail } from './head-tail.js';
import type { CommandRun } from './run-command.js';

/**
 * A target command's run under the "one JSON value on stdout" contract of the target contract (README)
 * (messages-client, tool-client): exit 0 prints the result, a non-zero exit prints the
 * suite's error object. Each suite names its own error schema and shape.
 */
/**
 * What a target's stdout is parsed within: stdout is kept up to 16 MiB, and 16 MiB of `[`
 * parses into some 485 MB of heap and 8 s of work, kept with the case. Far deeper than anything
 * a suite's mock serves (the mocks refuse bodies past 1,000 levels).
 */
export const OUTPUT_JSON_LIMITS = { maxDepth: 2048, maxLength: Number.POSITIVE_INFINITY } as const;

export type JsonCommandOutcome<E> =
  | { type: 'printed'; value: unknown }
  | { type: 'error'; error: E; exitCode: number | null }
  /** No exit within the budget. */
  | { type: 'timed-out'; reason: string }
  /** Anything else: could not start, unparseable stdout, an error object with exit 0, ... */
  | { type: 'broken'; reason: string };

export function classifyJsonCommandRun<S extends z.ZodType<{ error: unknown }>>(
  run: CommandRun,
  errorSchema: S,
  /** The error object as the target contract (README) spells it, for messages: `{"error":{"message":...}}`. */
  errorShape: string,
): JsonCommandOutcome<z.infer<S>['error']> {
  if (run.spawnError) {
    return { type: 'broken', reason: `the command could not start: ${run.spawnError.message}` };
  }
  if (run.timedOut) {
    return { type: 'timed-out', reason: `the command did not exit within ${Math.round(run.durationMs)} ms` };
  }
  const text = run.stdout.trim();
  const parsed = parseJsonBounded(text, OUTPUT_JSON_LIMITS);
  if (!parsed.ok) {
    const why = parsed.reason === 'syntax' ? '' : ` (${parsed.message})`;
    return {
      type: 'broken',
      reason: `stdout is not one JSON value${why} (exit ${exitOf(run)}): ${abbreviate(run.stdout)}`,
    };
  }
  const value = parsed.value;
  const asError = errorSchema.safeParse(value);
  if (run.exitCode === 0) {
    if (asError.success) {
      return { type: 'broken', reason: `exit 0 but stdout is an error object: ${abbreviate(text)}` };
    }
    return { type: 'printed', value };
  }
  if (!asError.success) {
    return {
      type: 'broken',
      reason: `exit ${exitOf(run)} but stdout is not ${errorShape}: ${abbreviate(text)}`,
    };
  }
  return { type: 'error', error: asError.data.error, exitCode: run.exitCode };
}

/**
 * A line about the run for failure messages: exit status and stderr, its first and last
 * 400 characters when longer (the cause is often at the start, the last words at the end).
 */
export function describeCommandRun(run: CommandRun): string {
  const stderr = headAndTail(run.stderr.trim(), 400, 400);
  return `exit ${exitOf(run)}${run.timedOut ? ' (timed out)' : ''}${stderr === '' ? '' : `; stderr: ${stderr}`}`;
}

function exitOf(run: CommandRun): string {
  return run.exitCode === null ? `signal ${run.signal ?? 'none'}` : String(run.exitCode);
}

function abbreviate(s: string): string {
  return s.length <= 400 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 400))}... (${s.length} chars)`;
}
