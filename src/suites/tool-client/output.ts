import { z } from 'zod';
import { classifyJsonCommandRun, describeCommandRun } from '../../harness/command-output.js';
import type { CommandRun } from '../../harness/run-command.js';

/** What a tool client prints on a protocol or transport failure (the target contract in the README, tool-client). */
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
  const outcome = classifyJsonCommandRun(run, ToolClientErrorOutput, '{"error":{"message":...}}');
  switch (outcome.type) {
    case 'timed-out':
      return { type: 'hung', reason: outcome.reason };
    case 'error':
      return { type: 'error', message: outcome.error.message, exitCode: outcome.exitCode };
    default:
      return outcome;
  }
}

/** A line about the run for failure messages: exit status and the end of stderr. */
export const describeToolClientRun = describeCommandRun;
