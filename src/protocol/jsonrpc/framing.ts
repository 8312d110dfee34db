import type { JsonRpcMessage } from './envelope.js';

/**
 * Newline-delimited JSON, the stdio transport's framing: one message per line, no embedded
 * newline (JSON.stringify never emits one). Pure; fed chunks of any size.
 */
export function encodeLine(message: JsonRpcMessage | unknown): string {
  return `${JSON.stringify(message)}\n`;
}

/** One line read from the stream, parsed or not. */
export type DecodedLine =
  | { readonly ok: true; readonly value: unknown; readonly line: string; readonly lineNumber: number }
  | { readonly ok: false; readonly error: string; readonly line: string; readonly lineNumber: number };

export interface LineDecoderOptions {
  /** Called once per complete line, blank lines excepted, in order. */
  onLine(line: DecodedLine): void;
  /**
   * A line longer than this many bytes is reported as an error and skipped (the MCP SDK
   * closes at 10 MiB). Default 64 MiB.
   */
  readonly maxLineBytes?: number;
}

export interface LineDecoder {
  /** Feed bytes (split anywhere, also inside a UTF-8 sequence) or text. */
  feed(chunk: Uint8Array | string): void;
  /** The stream ended: a last line without a newline is reported as an error and returned. */
  end(): string | undefined;
}

const NEWLINE = 0x0a;

/**
 * Split a byte stream into lines on `\n`, drop one trailing `\r` (as the MCP SDK does), decode
 * UTF-8 per whole line so a character split across chunks survives, and parse each line as
 * JSON. Invalid UTF-8 becomes U+FFFD, as JSON.parse of a decoded string would see it.
 */
export function createLineDecoder(options: LineDecoderOptions): LineDecoder {
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let overflow = false;
  let lineNumber = 0;

  const emit = (bytes: Uint8Array): void => {
    lineNumber += 1;
    if (overflow) {
      overflow = false;
      options.onLine({
        ok: false,
        error: `line longer than ${maxLineBytes} bytes`,
        line: decoder.decode(bytes.subarray(0, 200)),
        lineNumber,
      });
      return;
    }
    let text = decoder.decode(bytes);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') {
      lineNumber -= 1;
      return;
    }
    try {
      options.onLine({ ok: true, value: JSON.parse(text), line: text, lineNumber });
    } catch (e) {
      options.onLine({ ok: false, error: (e as Error).message, line: text, lineNumber });
    }
  };

  const take = (): Uint8Array => {
    const joined = pending.length === 1 ? (pending[0] as Uint8Array) : concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return joined;
  };

  const keep = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    if (overflow) return;
    if (pendingBytes + bytes.length > maxLineBytes) {
      // Keep only the start, for the error message.
      overflow = true;
      if (pendingBytes === 0) pending.push(bytes.subarray(0, 200));
      return;
    }
    pending.push(bytes);
    pendingBytes += bytes.length;
  };

  return {
    feed(chunk) {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      let start = 0;
      for (;;) {
        const nl = bytes.indexOf(NEWLINE, start);
        if (nl < 0) break;
        keep(bytes.subarray(start, nl));
        emit(take());
        start = nl + 1;
      }
      if (start < bytes.length) keep(bytes.slice(start));
    },
    end() {
      if (pendingBytes === 0 && !overflow) return undefined;
      const rest = take();
      overflow = false;
      const text = decoder.decode(rest);
      if (text.trim() === '') return undefined;
      lineNumber += 1;
      options.onLine({
        ok: false,
        error: 'the stream ended inside a line (no newline after it)',
        line: text,
        lineNumber,
      });
      return text;
    },
  };
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
