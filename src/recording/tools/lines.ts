import { roundMs } from '../../fixtures/chunks.js';
import type { ToolDirection, ToolMessage } from '../../fixtures/schema.js';
import { HeldBytes } from '../../protocol/held-line.js';

const NEWLINE = 0x0a;
const utf8 = new TextDecoder();

/** Splits one direction of a stdio session into recorded lines. */
export interface LineRecorder {
  /** Bytes as they arrived; `atMs` is when. */
  feed(bytes: Uint8Array, atMs: number): void;
  /** The stream ended: a last line without `\n` is recorded as unterminated. */
  end(atMs: number): void;
}

/**
 * Records each `\n`-terminated line of a byte stream as one message (text without the `\n`,
 * a trailing `\r` kept: the recording is of what was sent), timed when its last byte
 * arrived. Blank lines are not messages (newline-delimited JSON skips them). Pure apart from
 * `push`.
 */
export function createLineRecorder(direction: ToolDirection, push: (m: ToolMessage) => void): LineRecorder {
  const pending = new HeldBytes();
  const emit = (atMs: number, unterminated: boolean) => {
    const text = utf8.decode(pending.head());
    pending.clear();
    if (text.trim() === '' && !unterminated) return;
    push({ atMs: roundMs(atMs), direction, text, ...(unterminated && { unterminated: true as const }) });
  };
  return {
    feed(bytes, atMs) {
      let from = 0;
      for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, from)) {
        pending.add(bytes.subarray(from, i), false);
        emit(atMs, false);
        from = i + 1;
      }
      if (from < bytes.length) pending.add(bytes.subarray(from), true);
    },
    end(atMs) {
      if (pending.length > 0) emit(atMs, true);
    },
  };
}
