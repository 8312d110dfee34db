import { z } from 'zod';
import { classifyJsonCommandRun, describeCommandRun } from '../../harness/command-output.js';
import type { CommandRun } from '../../harness/run-command.js';

/** The failure kinds a messages client prints (the target contract in the README, messages-client). */
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
  const outcome = classifyJsonCommandRun(run, ClientErrorOutput, '{"error":{"kind","status","message"}}');
  return outcome.type === 'timed-out' ? { type: 'broken', reason: outcome.reason } : outcome;
}

/** A line about the run for failure messages: exit status and the end of stderr. */
export const describeRun = describeCommandRun;
