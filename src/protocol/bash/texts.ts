import { OUTPUT_LIMIT_BYTES } from './limits.js';

/** Runner contract 5: appended after the cut, outside the limit; says how much there was. */
export const truncationNote = (limit = OUTPUT_LIMIT_BYTES, totalBytes?: number): string =>
  `\n[output truncated: the ${limit / 1024} KB limit (${limit} bytes) was exceeded` +
  (totalBytes === undefined ? ']' : `; ${totalBytes} bytes of output in all]`);

/** Runner contract 6: the text for blank output. */
export const blankOutputText = (exitCode: number): string =>
  `(no output was produced; exit code ${exitCode})`;

/** Runner contract 1: refusal. */
export const refusalText = (blocked: string): string =>
  `Security violation: the command was refused because it contains the blocked pattern ${JSON.stringify(blocked)}.`;

/** Runner contract 3. */
export const timeoutText = (seconds: number): string => `Command timed out after ${seconds} seconds.`;

/** Errors: a process that cannot be started. */
export const spawnFailureText = (reason: string): string => `Process execution error: ${reason}`;

/**
 * `restart: true` without a command. The wording of Anthropic's reference bash tool
 * ("tool has been restarted."), which the spec does not show.
 */
export const restartText = (): string => 'tool has been restarted.';

/** A runner input line that is not a usable bash tool_use block. */
export const invalidInputText = (problem: string): string => `Invalid tool_use input: ${problem}`;
