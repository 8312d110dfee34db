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

const LF = 10;
const CR = 13;
const BOM = 0xfeff;
/** Characters of an unterminated frame kept for `end()`; the rest is elided. */
const OPEN_FRAME_LIMIT = 64 * 1024;

/**
 * Bytes -> SSE frames, on top of eventsource-parser (LF, CRLF, CR, a CRLF split across
 * chunks, comments, multi-line data). A streaming TextDecoder keeps a UTF-8 character
 * split across chunks whole.
 *
 * Every callback sees the same thing however the stream is chunked. For that the decoder
 * hands the parser whole lines only: the parser silently drops a partial line at a chunk
 * end that cannot become a known field, so an invalid line would be reported or not
 * depending on where TCP cut the stream. The decoder also strips the one leading BOM
 * itself, so that raw bytes and decoded text behave alike (TextDecoder and the parser
 * would each strip one).
 */
export function createFrameDecoder(callbacks: FrameDecoderCallbacks): FrameDecoder {
  const text = new TextDecoder('utf-8', { ignoreBOM: true });
  let atStart = true;
  /** The current line, not yet terminated, as fragments (joined once its end arrives). */
  const partialLine: string[] = [];
  /** Last character handed to the parser: always a line terminator, or 0 before any. */
  let lastFed = 0;
  /** Field lines since the last blank line: the frame still open. */
  let openFrame: string[] = [];
  let openFrameLength = 0;
  let openFrameElided = 0;

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
  // A blank line before anything dispatches nothing; it ends the parser's own BOM check.
  parser.feed('\n');

  function trackOpenFrame(lines: string): void {
    const blank = lastBlankLineEnd(lines, lastFed);
    if (blank !== -1) {
      openFrame = [];
      openFrameLength = 0;
      openFrameElided = 0;
    }
    const rest = blank === -1 ? lines : lines.slice(blank);
    if (rest === '' || rest === '\n') return;
    for (const line of rest.split(/\r\n|\r|\n/)) {
      if (line === '' || line.charCodeAt(0) === 58 /* ':' comment */) continue;
      if (openFrameLength + line.length > OPEN_FRAME_LIMIT) {
        openFrameElided += line.length;
        continue;
      }
      openFrame.push(line);
      openFrameLength += line.length + 1;
    }
  }

  function feedText(s: string): void {
    if (s === '') return;
    if (atStart) {
      atStart = false;
      if (s.charCodeAt(0) === BOM) {
        s = s.slice(1);
        if (s === '') return;
      }
    }
    const lastEnd = lastLineTerminator(s);
    if (lastEnd === -1) {
      partialLine.push(s);
      return;
    }
    let lines = s.slice(0, lastEnd + 1);
    if (partialLine.length > 0) {
      partialLine.push(lines);
      lines = partialLine.join('');
      partialLine.length = 0;
    }
    if (lastEnd + 1 < s.length) partialLine.push(s.slice(lastEnd + 1));
    trackOpenFrame(lines);
    lastFed = lines.charCodeAt(lines.length - 1);
    parser.feed(lines);
  }

  return {
    feed(chunk) {
      feedText(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
    },
    end() {
      // An incomplete UTF-8 sequence at the very end becomes U+FFFD here.
      feedText(text.decode());
      const last = partialLine.join('');
      partialLine.length = 0;
      const fields = last !== '' && last.charCodeAt(0) !== 58 ? [...openFrame, last] : openFrame;
      const elided = openFrameElided > 0 ? `\n... (${openFrameElided} more characters)` : '';
      openFrame = [];
      openFrameLength = 0;
      openFrameElided = 0;
      return fields.join('\n') + (fields.length > 0 ? elided : '');
    },
  };
}

function isLineTerminator(code: number): boolean {
  return code === LF || code === CR;
}

function lastLineTerminator(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (isLineTerminator(s.charCodeAt(i))) return i;
  return -1;
}

/**
 * Where the text after the last blank line of `lines` starts, or -1 when it has none.
 * `before` is the character that preceded `lines` in the stream (a terminator or 0): a
 * blank line is a terminator right after another one, a CR followed by LF being one.
 */
function lastBlankLineEnd(lines: string, before: number): number {
  for (let i = lines.length - 1; i >= 0; i--) {
    const c = lines.charCodeAt(i);
    if (!isLineTerminator(c)) continue;
    const p = i > 0 ? lines.charCodeAt(i - 1) : before;
    if (!isLineTerminator(p) || (p === CR && c === LF)) continue;
    return c === CR && lines.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
  }
  return -1;
}

/** The fields after the last blank line of a whole text, comments left out; '' when none. */
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
