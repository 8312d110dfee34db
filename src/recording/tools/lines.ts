import { roundMs } from '../../fixtures/chunks.js';
import type { ToolDirection, ToolMessage } from '../../fixtures/schema.js';
import { HeldBytes } from '../../protocol/held-line.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../protocol/jsonrpc/index.js';
import { scrubPrefix, scrubSecrets } from '../redact.js';

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
 * arrived, with every occurrence of a known secret (`secrets`) replaced. Blank lines are not
 * messages (newline-delimited JSON skips them). A line longer than `maxLineBytes` (default
 * DEFAULT_MAX_LINE_BYTES, the longest line wirecheck's own readers take) is recorded by its
 * start, cut at a character boundary and marked `cut`: the relay passes every byte, but what
 * the recorder holds of one line is bounded, whatever a server writes. Past the cut it holds
 * as many bytes as a secret begun before it could still need, so that secret is replaced
 * whole rather than cut first and its start kept. Pure apart from `push`.
 */
export function createLineRecorder(
  direction: ToolDirection,
  push: (m: ToolMessage) => void,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  secrets: readonly string[] = [],
): LineRecorder {
  let margin = 0;
  for (const s of secrets) margin = Math.max(margin, Buffer.byteLength(s) - 1);
  const limit = maxLineBytes + margin;
  const pending = new HeldBytes();
  /** Bytes of the line were dropped past `limit`. */
  let dropped = false;
  const hold = (bytes: Uint8Array, copy: boolean) => {
    if (dropped) return;
    const room = limit - pending.length;
    if (bytes.length > room) {
      dropped = true;
      bytes = bytes.subarray(0, room);
    }
    pending.add(bytes, copy);
  };
  const textOf = (head: Uint8Array, cut: boolean): string => {
    if (!cut) return scrubSecrets(utf8.decode(head), secrets);
    const kept = withoutCutCharacter(head.subarray(0, maxLineBytes));
    const keptText = utf8.decode(kept);
    return scrubPrefix(keptText + utf8.decode(head.subarray(kept.length)), secrets, keptText.length);
  };
  const emit = (atMs: number, unterminated: boolean) => {
    const head = pending.head();
    const wasCut = dropped || head.length > maxLineBytes;
    const text = textOf(head, wasCut);
    pending.clear();
    dropped = false;
    if (text.trim() === '' && !unterminated && !wasCut) return;
    push({
      atMs: roundMs(atMs),
      direction,
      text,
      ...(unterminated && { unterminated: true as const }),
      ...(wasCut && { cut: true as const }),
    });
  };
  return {
    feed(bytes, atMs) {
      let from = 0;
      for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, from)) {
        hold(bytes.subarray(from, i), false);
        emit(atMs, false);
        from = i + 1;
      }
      if (from < bytes.length) hold(bytes.subarray(from), true);
    },
    end(atMs) {
      if (pending.length > 0 || dropped) emit(atMs, true);
    },
  };
}

/** `bytes` without the character its end cuts into, if it does (UTF-8). */
export function withoutCutCharacter(bytes: Uint8Array): Uint8Array {
  for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 4; i--) {
    const b = bytes[i] as number;
    if ((b & 0xc0) === 0x80) continue;
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + size > bytes.length ? bytes.subarray(0, i) : bytes;
  }
  return bytes;
}
