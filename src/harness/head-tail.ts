/**
 * Keeps the first and the last bytes of a stream whose middle may be dropped: a target's
 * stderr. The cause of a failure is usually at the start (`Error: Cannot find module`),
 * the stack or the last words at the end; a flood in between is not worth keeping.
 */
export interface HeadTailCapture {
  push(chunk: Uint8Array): void;
  /** Bytes seen in all. */
  readonly totalBytes: number;
  /** The head, a note naming the bytes left out (if any), the tail; decoded as UTF-8. */
  text(): string;
}

/** Bytes kept of each end of a target's stderr. */
export const STDERR_HEAD_BYTES = 8 * 1024;
export const STDERR_TAIL_BYTES = 8 * 1024;

export function elisionNote(bytes: number, what = 'stderr'): string {
  return `\n[... ${bytes} bytes of ${what} left out ...]\n`;
}

export function createHeadTailCapture(
  headBytes = STDERR_HEAD_BYTES,
  tailBytes = STDERR_TAIL_BYTES,
  what = 'stderr',
): HeadTailCapture {
  const head = Buffer.alloc(headBytes);
  let headLength = 0;
  // The tail as a ring: `tail` holds the last `tailLength` bytes ending before `tailEnd`.
  const tail = Buffer.alloc(tailBytes);
  let tailEnd = 0;
  let tailLength = 0;
  let total = 0;
  const pushTail = (bytes: Uint8Array) => {
    if (tailBytes === 0) return;
    const source = bytes.length > tailBytes ? bytes.subarray(bytes.length - tailBytes) : bytes;
    let offset = 0;
    while (offset < source.length) {
      const n = Math.min(source.length - offset, tailBytes - tailEnd);
      tail.set(source.subarray(offset, offset + n), tailEnd);
      tailEnd = (tailEnd + n) % tailBytes;
      offset += n;
    }
    tailLength = Math.min(tailBytes, tailLength + source.length);
  };
  return {
    push(chunk) {
      total += chunk.length;
      let rest = chunk;
      if (headLength < headBytes) {
        const n = Math.min(headBytes - headLength, rest.length);
        head.set(rest.subarray(0, n), headLength);
        headLength += n;
        rest = rest.subarray(n);
      }
      if (rest.length > 0) pushTail(rest);
    },
    get totalBytes() {
      return total;
    },
    text() {
      const start = (tailEnd - tailLength + tailBytes) % (tailBytes || 1);
      const tailPart =
        start + tailLength <= tailBytes
          ? tail.subarray(start, start + tailLength)
          : Buffer.concat([tail.subarray(start), tail.subarray(0, tailEnd)]);
      const elided = total - headLength - tailLength;
      const headText = head.subarray(0, headLength).toString('utf8');
      return elided > 0
        ? `${headText}${elisionNote(elided, what)}${tailPart.toString('utf8')}`
        : `${headText}${tailPart.toString('utf8')}`;
    },
  };
}

/**
 * A long text shortened for a one-line message: its first `head` and last `tail`
 * characters with a note of what was left out between them.
 */
export function headAndTail(text: string, head: number, tail: number): string {
  if (text.length <= head + tail) return text;
  return `${text.slice(0, head)} [... ${text.length - head - tail} characters ...] ${text.slice(-tail)}`;
}
