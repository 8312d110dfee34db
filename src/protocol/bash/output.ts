import { MAX_UTF8_CHAR_BYTES, OUTPUT_LIMIT_BYTES, STDERR_SEPARATOR } from './limits.js';
import { truncationNote } from './texts.js';

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
 * The texts Runner contract 4 allows for `stdout` and `stderr`: the assembled one, and, when
 * stdout already ends with a line break, the one that takes that break as the break before
 * the separator line instead of adding another (the spec: "with a line break before and
 * after" the separator line, which either text has).
 */
export function assembledOutputForms(stdout: string, stderr: string): [string, ...string[]] {
  const assembled = assembleOutput(stdout, stderr);
  if (stdout === '' || stderr === '' || !stdout.endsWith('\n')) return [assembled];
  return [assembled, `${stdout}${STDERR_SEPARATOR}\n${stderr}`];
}

const isContinuationByte = (byte: number): boolean => (byte & 0xc0) === 0x80;

/**
 * The longest prefix of `bytes` of at most `limit` bytes that does not split a UTF-8
 * character: when the byte at the cut is a continuation byte (10xxxxxx), the cut backs off
 * to the lead byte of that character, dropping its incomplete start. The back-off is
 * bounded by the longest character, so invalid input (a run of stray continuation bytes)
 * cannot shrink the prefix to nothing.
 */
export function utf8Prefix(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let end = limit;
  const floor = Math.max(0, limit - (MAX_UTF8_CHAR_BYTES - 1));
  while (end > floor && isContinuationByte(bytes[end]!)) end--;
  if (isContinuationByte(bytes[end]!)) end = limit;
  return bytes.subarray(0, end);
}

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
  const total = Math.max(totalBytes ?? 0, bytes.length);
  if (total <= limit) return { text, truncated: false };
  return {
    text: Buffer.from(utf8Prefix(bytes, limit)).toString('utf8') + truncationNote(limit, total),
    truncated: true,
  };
}

/** Runner contract 6: output that is empty or only whitespace counts as blank. */
export const isBlankOutput = (text: string): boolean => text.trim() === '';
