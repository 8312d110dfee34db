import { HeldBytes } from '../held-line.js';

/**
 * One line of the runner's JSON Lines input: its text, or why it has none. Every line the
 * input holds yields exactly one of these, so a bad line still gets its own result.
 */
export type InputLine =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'too-long'; readonly bytes: number; readonly maxBytes: number }
  | { readonly kind: 'not-utf8' };

export interface LineSplitter {
  /** The lines completed by this chunk. */
  push(chunk: Uint8Array): InputLine[];
  /** The unterminated last line, if the input ended with one. */
  end(): InputLine[];
}

/** Large enough for any reasonable command (a 1 MB command is a normal case). */
export const MAX_INPUT_LINE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits bytes into lines at LF (a CR before it is dropped), decoding each line as strict
 * UTF-8 (JSON text is UTF-8). A line longer than `maxLineBytes` is not kept: its bytes are
 * counted and dropped, and it is reported as too long, so memory stays bounded.
 */
export function createLineSplitter(maxLineBytes = MAX_INPUT_LINE_BYTES): LineSplitter {
  const held = new HeldBytes();
  let lineBytes = 0;

  function append(bytes: Uint8Array): void {
    lineBytes += bytes.length;
    if (lineBytes <= maxLineBytes) held.add(bytes, true);
    else held.clear();
  }

  function finishLine(): InputLine {
    const bytes = lineBytes;
    const all = held.head();
    held.clear();
    lineBytes = 0;
    if (bytes > maxLineBytes) return { kind: 'too-long', bytes, maxBytes: maxLineBytes };
    const body = all.length > 0 && all[all.length - 1] === CR ? all.subarray(0, all.length - 1) : all;
    try {
      return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body) };
    } catch {
      return { kind: 'not-utf8' };
    }
  }

  return {
    push(chunk) {
      const lines: InputLine[] = [];
      let start = 0;
      for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, start)) {
        append(chunk.subarray(start, at));
        lines.push(finishLine());
        start = at + 1;
      }
      if (start < chunk.length) append(chunk.subarray(start));
      return lines;
    },
    end() {
      return lineBytes > 0 ? [finishLine()] : [];
    },
  };
}
