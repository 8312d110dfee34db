import { type CapturedStream, decodeCaptured } from './capture.js';
import { OUTPUT_LIMIT_BYTES, STDERR_SEPARATOR } from './limits.js';
import { assembleOutput, isBlankOutput, utf8Prefix } from './output.js';
import { blankOutputText, timeoutText, truncationNote } from './texts.js';

/** How a command that ran ended, as the result text is built from it. */
export interface CommandOutput {
  readonly stdout: CapturedStream;
  readonly stderr: CapturedStream;
  /** The shell's exit code (128+n for a death by signal n); ignored when timed out. */
  readonly exitCode: number;
  /** The timeout in seconds when the command ran into it, else undefined. */
  readonly timedOutAfterS?: number | undefined;
}

export interface ResultContent {
  readonly content: string;
  readonly isError: boolean;
  readonly truncated: boolean;
  /** Bytes of the assembled output before any cut (separator included). */
  readonly outputBytes: number;
}

const SEPARATOR_BYTES = Buffer.byteLength(`\n${STDERR_SEPARATOR}\n`);

/**
 * Runner contract 3 to 7 as one function: assemble stdout and stderr, cut the assembled
 * text at the limit on a character boundary with the note, replace blank output by the
 * blank-output text, and prefix the timeout text when the command timed out (keeping
 * whatever it printed before). `is_error` is true exactly when the exit code is not 0 or
 * the command timed out.
 *
 * Each stream holds at least `limit` + 3 bytes when it was cut short, and decoding never
 * shrinks bytes (U+FFFD is 3 bytes for 1 to 3 bad bytes), so an incomplete stream always
 * pushes the assembled text over the limit and the cut falls inside what was kept.
 */
export function resultContent(output: CommandOutput, limit = OUTPUT_LIMIT_BYTES): ResultContent {
  const { stdout, stderr } = output;
  const out = decodeCaptured(stdout);
  const err = decodeCaptured(stderr);
  const assembled = assembleOutput(out, err);
  const bytes = Buffer.from(assembled, 'utf8');
  const outputBytes =
    stdout.totalBytes +
    stderr.totalBytes +
    (stdout.totalBytes > 0 && stderr.totalBytes > 0 ? SEPARATOR_BYTES : 0);
  const truncated = bytes.length > limit;
  const text = truncated
    ? Buffer.from(utf8Prefix(bytes, limit)).toString('utf8') + truncationNote(limit, outputBytes)
    : assembled;
  // Blank: nothing but whitespace on either stream (a separator alone is not output).
  const blank = !truncated && isBlankOutput(out) && isBlankOutput(err);
  if (output.timedOutAfterS !== undefined) {
    const note = timeoutText(output.timedOutAfterS);
    return { content: blank ? note : `${note}\n${text}`, isError: true, truncated, outputBytes };
  }
  return {
    content: blank ? blankOutputText(output.exitCode) : text,
    isError: output.exitCode !== 0,
    truncated,
    outputBytes,
  };
}
