import { createParser, type ParseError } from 'eventsource-parser';

/** One decoded SSE frame. `event` is undefined when the frame had no `event:` line. */
export interface SseFrame {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

export interface FrameDecoderCallbacks {
  onFrame(frame: SseFrame): void;
  onComment?(comment: string): void;
  /** A line that is not an SSE field (reported, then skipped, as the SSE spec says). */
  onInvalidLine?(line: string, error: ParseError): void;
}

export interface FrameDecoder {
  /** Feed raw bytes (UTF-8 sequences may be split across chunks) or already decoded text. */
  feed(chunk: Uint8Array | string): void;
  /**
   * The stream ended. Returns the text of an incomplete last frame (fields not closed by a
   * blank line, which the SSE spec says to discard), or '' when the stream ended cleanly.
   */
  end(): string;
}

const TAIL = 1024;

/**
 * Bytes -> SSE frames, on top of eventsource-parser (LF, CRLF, CR, a CRLF split across
 * chunks, BOM, comments, multi-line data). A streaming TextDecoder keeps a UTF-8
 * character split across chunks whole.
 */
export function createFrameDecoder(callbacks: FrameDecoderCallbacks): FrameDecoder {
  const text = new TextDecoder('utf-8');
  // The last characters fed: enough to tell at EOF whether a frame was left open.
  let tail = '';
  const parser = createParser({
    onEvent(message) {
      callbacks.onFrame({ event: message.event, data: message.data, id: message.id });
    },
    onComment(comment) {
      callbacks.onComment?.(comment);
    },
    onError(error) {
      callbacks.onInvalidLine?.(error.line ?? '', error);
    },
  });
  function feedText(s: string): void {
    if (s === '') return;
    tail = s.length >= TAIL ? s.slice(-TAIL) : (tail + s).slice(-TAIL);
    parser.feed(s);
  }
  return {
    feed(chunk) {
      feedText(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
    },
    end() {
      feedText(text.decode());
      return unterminatedFrame(tail);
    },
  };
}

/** The fields after the last blank line of `tail`, comments left out; '' when none. */
export function unterminatedFrame(tail: string): string {
  const normalized = tail.replace(/^\uFEFF/, '').replace(/\r\n|\r/g, '\n');
  const lastBlank = normalized.lastIndexOf('\n\n');
  const rest = lastBlank === -1 ? normalized : normalized.slice(lastBlank + 2);
  // A lone leading "\n" after the blank line is another blank line, not a field.
  const fields = rest.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
  return fields.join('\n');
}

/** Decode a whole byte stream given as chunks. */
export function decodeFrames(chunks: Iterable<Uint8Array | string>): {
  frames: SseFrame[];
  unterminated: string;
} {
  const frames: SseFrame[] = [];
  const decoder = createFrameDecoder({ onFrame: (f) => frames.push(f) });
  for (const c of chunks) decoder.feed(c);
  return { frames, unterminated: decoder.end() };
}
