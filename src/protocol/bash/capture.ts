import { MAX_UTF8_CHAR_BYTES, OUTPUT_LIMIT_BYTES } from './limits.js';

/** What was kept of one output stream: its first bytes and how many bytes it had in all. */
export interface CapturedStream {
  readonly head: Uint8Array;
  readonly totalBytes: number;
}

/** A bounded collector for one output stream (stdout or stderr), fed chunk by chunk. */
export interface OutputCapture {
  push(chunk: Uint8Array): void;
  readonly totalBytes: number;
  result(): CapturedStream;
}

/**
 * Enough of a stream to cut the assembled output at the limit on a character boundary:
 * the limit plus the back-off room of one character.
 */
export const CAPTURE_KEEP_BYTES = OUTPUT_LIMIT_BYTES + MAX_UTF8_CHAR_BYTES;

/**
 * Keeps the first `keepBytes` bytes and only counts the rest, so a command printing
 * gigabytes costs the runner no more memory than the kept prefix. Kept bytes are copied
 * out of the chunk so the chunk itself can be freed.
 */
export function createOutputCapture(keepBytes = CAPTURE_KEEP_BYTES): OutputCapture {
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let totalBytes = 0;
  return {
    push(chunk) {
      totalBytes += chunk.length;
      const room = keepBytes - keptBytes;
      if (room <= 0 || chunk.length === 0) return;
      // A copy (Buffer#slice would be a view that keeps the whole chunk alive).
      const part = new Uint8Array(chunk.subarray(0, room));
      kept.push(part);
      keptBytes += part.length;
    },
    get totalBytes() {
      return totalBytes;
    },
    result() {
      const head = new Uint8Array(keptBytes);
      let at = 0;
      for (const part of kept) {
        head.set(part, at);
        at += part.length;
      }
      return { head, totalBytes };
    },
  };
}

/** A stream captured whole (tests and callers that already hold all the bytes). */
export function capturedOf(bytes: Uint8Array | string, keepBytes = CAPTURE_KEEP_BYTES): CapturedStream {
  const capture = createOutputCapture(keepBytes);
  capture.push(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  return capture.result();
}

/** Whether the capture holds the whole stream rather than a prefix of it. */
export const isComplete = (captured: CapturedStream): boolean => captured.head.length === captured.totalBytes;

/**
 * The captured bytes as text. Bytes that are not UTF-8 become U+FFFD; a byte order mark is
 * kept as output. A prefix (an incomplete capture) may end inside a character: that tail
 * is held back rather than turned into U+FFFD, since the stream went on past it.
 */
export function decodeCaptured(captured: CapturedStream): string {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return decoder.decode(captured.head, { stream: !isComplete(captured) });
}
