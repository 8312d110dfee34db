import { z } from 'zod';
import type { CommandRun } from '../../harness/run-command.js';

/** The failure kinds a messages client prints (TARGETS.md, messages-client). */
export const CLIENT_ERROR_KINDS = [
  'missing_api_key',
  'rate_limit',
  'connection',
  'status',
  'stream',
] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];

/**
 * What a client prints on failure: `{"error":{"kind","status","message"}}`. `kind` is a
 * plain string here so that an unknown kind is reported as a wrong kind, not as a shape
 * error; `status` is absent or null where there was no HTTP status.
 */
export const ClientErrorOutput = z.looseObject({
  error: z.looseObject({
    kind: z.string(),
    status: z.number().int().nullable().optional(),
    message: z.string(),
  }),
});
export type ClientErrorOutput = z.infer<typeof ClientErrorOutput>;

/** One run of the client command, classified by the target contract. */
export type ClientOutcome =
  /** Exit 0 and stdout is one JSON value (expected: the final message). */
  | { type: 'printed'; value: unknown }
  /** Non-zero exit and stdout is the error object. */
  | { type: 'error'; error: ClientErrorOutput['error']; exitCode: number | null }
  /** Anything else: no exit within the budget, unparseable stdout, error object with exit 0... */
  | { type: 'broken'; reason: string };

export function classifyRun(run: CommandRun): ClientOutcome {
  if (run.spawnError)
    return { type: 'broken', reason: `the command could not start: ${run.spawnError.message}` };
  if (run.timedOut) {
    return { type: 'broken', reason: `the command did not exit within ${Math.round(run.durationMs)} ms` };
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
  const asError = ClientErrorOutput.safeParse(value);
  if (run.exitCode === 0) {
    if (asError.success) {
      return { type: 'broken', reason: `exit 0 but stdout is an error object: ${abbreviate(text)}` };
    }
    return { type: 'printed', value };
  }
  if (!asError.success) {
    return {
      type: 'broken',
      reason: `exit ${exitOf(run)} but stdout is not {"error":{"kind","status","message"}}: ${abbreviate(text)}`,
    };
  }
  return { type: 'error', error: asError.data.error, exitCode: run.exitCode };
}

/** A line about the run for failure messages: exit status and the end of stderr. */
export function describeRun(run: CommandRun): string {
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
