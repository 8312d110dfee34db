import { OUTPUT_LIMIT_BYTES, STDERR_SEPARATOR } from './limits.js';

/**
 * Runner contract 4: stdout; when stderr is non-empty it is appended, preceded by the
 * separator line (with a line break before and after) only when stdout was non-empty.
 */
export function assembleOutput(stdout: string, stderr: string): string {
  if (stderr === '') return stdout;
  if (stdout === '') return stderr;
  return `${stdout}\n${STDERR_SEPARATOR}\n${stderr}`;
}

/**
 * The longest prefix of `bytes` of at most `limit` bytes that ends on a UTF-8 character
 * boundary: a cut never splits a character (continuation bytes are 10xxxxxx).
 */
export function utf8Prefix(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let end = limit;
  // Back off over continuation bytes to the lead byte of the character being cut...
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

export const truncationNote = (limit = OUTPUT_LIMIT_BYTES): string =>
  `\n[output truncated: the ${limit / 1024} KB limit (${limit} bytes) was exceeded]`;

/**
 * Runner contract 5: output over the limit is cut to at most the limit (on a character
 * boundary) and the note is appended; `totalBytes` is the real size when the caller kept
 * only a prefix of the output.
 */
export function truncateOutput(
  text: string,
  limit = OUTPUT_LIMIT_BYTES,
  totalBytes?: number,
): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  const total = totalBytes ?? bytes.length;
  if (total <= limit) return { text, truncated: false };
  return { text: Buffer.from(utf8Prefix(bytes, limit)).toString('utf8') + truncationNote(limit), truncated: true };
}

/** Runner contract 6: the text for blank output. */
export const blankOutputText = (exitCode: number): string => `(no output; exit code ${exitCode})`;

/** Runner contract 1: refusal. */
export const refusalText = (blocked: string): string =>
  `Security violation: the command was refused because it contains the blocked pattern ${JSON.stringify(blocked)}.`;

/** Runner contract 3. */
export const timeoutText = (seconds: number): string => `Command timed out after ${seconds} seconds.`;

/** Errors: a process that cannot be started. */
export const spawnFailureText = (reason: string): string => `Process execution error: ${reason}`;
