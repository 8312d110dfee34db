import { createParser, type ParseError } from 'eventsource-parser';
import { detach } from '../clip.js';
import { HeldText } from '../held-line.js';

/** One decoded SSE frame. `event` is undefined when the frame had no `event:` line. */
export interface SseFrame {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/**
 * What the decoder holds at most, in characters of decoded text (UTF-16 code units: one
 * per byte for ASCII). Without them a stream whose line or frame never ends grows the
 * reader's heap until it dies.
 */
export interface SseLimits {
  /** Longest line, field or comment, its terminator left out. */
  readonly maxLineLength?: number;
  /** Largest frame: its field lines since the blank line before it, one terminator each. */
  readonly maxFrameLength?: number;
}

/**
 * 16 MiB each: the largest JSON text a reader parses (`DEFAULT_JSON_LIMITS.maxLength`), far
 * above any honest event (a messages stream sends small deltas; a large tool result is a
 * few MB), and low enough that a reader stays far below 400 MB.
 */
export const DEFAULT_SSE_LIMITS = {
  maxLineLength: 16 * 1024 * 1024,
  maxFrameLength: 16 * 1024 * 1024,
} as const;

/**
 * A line or a frame passed its limit: the frame it belongs to is discarded (up to the blank
 * line that ends it) and decoding goes on after it. A protocol failure of the sender.
 */
export class SseLimitError extends Error {
  override readonly name = 'SseLimitError';
  constructor(
    readonly limit: keyof SseLimits,
    /** The limit's value, in characters. */
    readonly value: number,
    /** Characters of the line or frame seen when it passed the limit (more than `value`). */
    readonly seen: number,
    /** Where the line or frame starts: characters of the stream before it (a leading BOM not counted). */
    readonly offset: number,
    /** Frames dispatched before it. */
    readonly afterFrames: number,
    /** Its first characters. */
    readonly head: string,
  ) {
    const what =
      limit === 'maxLineLength'
        ? `an SSE line longer than the ${value}-character limit (${limit}): more than ${value} characters without a line break`
        : `an SSE frame longer than the ${value}-character limit (${limit}): ${seen} characters of fields without the blank line that ends a frame`;
    super(
      `${what}, at character ${offset} of the stream (after frame ${afterFrames}), starting ${JSON.stringify(head)}; the frame was discarded`,
    );
  }
}

export interface FrameDecoderCallbacks {
  onFrame(frame: SseFrame): void;
  onComment?(comment: string): void;
  /**
   * A `retry:` field (ASCII digits only, as the SSE spec reads it): the reconnection time, in
   * ms, the sender asks for. The SSE spec applies it at once, whether or not its frame is
   * dispatched.
   */
  onRetry?(ms: number): void;
  /** A line that is not an SSE field (reported, then skipped, as the SSE spec says). */
  onInvalidLine?(line: string, error: ParseError): void;
  /**
   * A line or frame passed its limit; its frame is discarded. Without this callback the
   * discarding is silent: every reader of a target's bytes passes one.
   */
  onLimit?(error: SseLimitError): void;
  /** Default DEFAULT_SSE_LIMITS. */
  readonly limits?: SseLimits;
}

export type FrameDecoderOptions = FrameDecoderCallbacks;

export interface FrameDecoder {
  /** Feed raw bytes (UTF-8 sequences may be split across chunks) or already decoded text. Never throws by itself. */
  feed(chunk: Uint8Array | string): void;
  /**
   * The stream ended. Returns the text of an incomplete last frame (fields not closed by a
   * blank line, which the SSE spec says to discard), or '' when the stream ended cleanly
   * (or inside a frame already discarded for a limit).
   */
  end(): string;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const BOM = 0xfeff;
/** Any character that is not a line terminator: what precedes a skipped line's end. */
const NOT_TERMINATOR = 0x78;
/** Characters of an unterminated frame kept for `end()`; the rest is elided. */
const OPEN_FRAME_LIMIT = 64 * 1024;
/** Characters of a line or frame quoted in a limit error. */
const HEAD_LENGTH = 200;

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
 *
 * Nothing grows without bound: a line longer than `maxLineLength` or a frame longer than
 * `maxFrameLength` is reported to `onLimit` as soon as it passes the limit, and the frame
 * it belongs to is skipped (counted, not kept) up to its blank line. Whole chunks go to
 * the parser while the open line and frame are far from the limits; near them, lines go
 * one at a time.
 */
export function createFrameDecoder(callbacks: FrameDecoderCallbacks): FrameDecoder {
  const maxLine = callbacks.limits?.maxLineLength ?? DEFAULT_SSE_LIMITS.maxLineLength;
  const maxFrame = callbacks.limits?.maxFrameLength ?? DEFAULT_SSE_LIMITS.maxFrameLength;
  const text = new TextDecoder('utf-8', { ignoreBOM: true });
  let atStart = true;
  /** Characters taken in so far (after the BOM): the text being handled always ends there. */
  let streamLength = 0;
  /** The current line, not yet terminated (joined once its end arrives). */
  const partial = new HeldText();
  /** Last character handed to the parser: always a line terminator, or 0 before any. */
  let lastFed = 0;
  /** Field lines since the last blank line: the frame still open (the first 64 KiB of it). */
  let openFrame: string[] = [];
  let openFrameLength = 0;
  let openFrameElided = 0;
  /** Characters of the open frame's field lines, a terminator each; and where its first one starts. */
  let frameLength = 0;
  let frameStart = 0;
  let frames = 0;
  /** `skip-line`: inside a line over the limit; `skip-frame`: up to the blank line ending a discarded frame. */
  let mode: 'normal' | 'skip-line' | 'skip-frame' = 'normal';
  /** In `skip-frame`, the character before the text being scanned. */
  let skipPrev = 0;

  const parser = createParser({
    onEvent(message) {
      frames++;
      callbacks.onFrame({ event: message.event, data: message.data, id: message.id });
    },
    onComment(comment) {
      callbacks.onComment?.(comment);
    },
    onRetry(ms) {
      callbacks.onRetry?.(ms);
    },
    onError(error) {
      callbacks.onInvalidLine?.(error.line ?? '', error);
    },
  });
  // A blank line before anything dispatches nothing; it ends the parser's own BOM check.
  parser.feed('\n');

  function clearOpenFrame(): void {
    openFrame = [];
    openFrameLength = 0;
    openFrameElided = 0;
    frameLength = 0;
  }

  /** Account for the field lines of `lines` (whole lines starting at stream offset `base`). */
  function trackOpenFrame(lines: string, base: number): void {
    const blank = lastBlankLineEnd(lines, lastFed);
    if (blank !== -1) clearOpenFrame();
    let at = blank === -1 ? 0 : blank;
    while (at < lines.length) {
      const end = firstLineTerminator(lines, at);
      const stop = end === -1 ? lines.length : end;
      if (stop > at && lines.charCodeAt(at) !== COLON) {
        const line = lines.slice(at, stop);
        if (frameLength === 0) frameStart = base + at;
        frameLength += line.length + 1;
        if (openFrameLength + line.length > OPEN_FRAME_LIMIT) {
          openFrameElided += line.length;
        } else {
          openFrame.push(line);
          openFrameLength += line.length + 1;
        }
      }
      if (end === -1) break;
      at = end + 1;
    }
  }

  function feedLines(lines: string, base: number): void {
    trackOpenFrame(lines, base);
    lastFed = lines.charCodeAt(lines.length - 1);
    parser.feed(lines);
  }

  /** Drop the open frame: what the parser holds of it, and its tracking. */
  function discardFrame(): void {
    parser.reset();
    parser.feed('\n');
    clearOpenFrame();
  }

  /** Called last, once the decoder's state is consistent: the callback may throw out of feed. */
  function report(limit: keyof SseLimits, seen: number, offset: number, head: string): void {
    const value = limit === 'maxLineLength' ? maxLine : maxFrame;
    callbacks.onLimit?.(
      new SseLimitError(limit, value, seen, offset, frames, detach(head.slice(0, HEAD_LENGTH))),
    );
  }

  /** The open line plus `s` (no terminator in it) passed maxLineLength: skip the rest of it. */
  function partialLineTooLong(s: string): string {
    let head = partial.head(HEAD_LENGTH);
    if (head.length < HEAD_LENGTH) head += s.slice(0, HEAD_LENGTH - head.length);
    const seen = partial.length + s.length;
    partial.clear();
    discardFrame();
    mode = 'skip-line';
    report('maxLineLength', seen, streamLength - seen, head);
    return '';
  }

  function holdPartial(tail: string): string {
    if (tail === '') return '';
    if (partial.length + tail.length > maxLine) return partialLineTooLong(tail);
    partial.add(tail);
    return '';
  }

  /** Normal decoding of `s`; returns what is left when a limit switched to skipping. */
  function feedNormal(s: string): string {
    const lastEnd = lastLineTerminator(s);
    if (lastEnd === -1) return holdPartial(s);
    const upTo = lastEnd + 1;
    const open = partial.length + upTo;
    if (open > maxLine || frameLength + open > maxFrame) return feedLineByLine(s);
    const base = streamLength - partial.length - s.length;
    const lines = partial.length > 0 ? partial.take() + s.slice(0, upTo) : s.slice(0, upTo);
    feedLines(lines, base);
    return holdPartial(s.slice(upTo));
  }

  /** Near a limit: the open line and `s`, one line at a time, each checked before it is fed. */
  function feedLineByLine(s: string): string {
    const all = partial.length > 0 ? partial.take() + s : s;
    const base = streamLength - all.length;
    let at = 0;
    while (at < all.length) {
      const end = firstLineTerminator(all, at);
      if (end === -1) return holdPartial(all.slice(at));
      const length = end - at;
      if (length > maxLine) {
        discardFrame();
        mode = 'skip-frame';
        skipPrev = NOT_TERMINATOR;
        report('maxLineLength', length, base + at, all.slice(at, at + HEAD_LENGTH));
        return all.slice(end);
      }
      if (length > 0 && all.charCodeAt(at) !== COLON && frameLength + length + 1 > maxFrame) {
        const head = frameLength > 0 ? openFrame.join('\n') : all.slice(at, at + HEAD_LENGTH);
        const seen = frameLength + length + 1;
        const offset = frameLength > 0 ? frameStart : base + at;
        discardFrame();
        mode = 'skip-frame';
        skipPrev = at > 0 ? all.charCodeAt(at - 1) : lastFed;
        report('maxFrameLength', seen, offset, head);
        return all.slice(at);
      }
      let next = end + 1;
      if (all.charCodeAt(end) === CR && all.charCodeAt(next) === LF) next++;
      feedLines(all.slice(at, next), base + at);
      at = next;
    }
    return '';
  }

  /** Inside a line over the limit: drop characters up to its terminator. */
  function skipLine(s: string): string {
    const cr = s.indexOf('\r');
    const lf = s.indexOf('\n');
    const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
    if (end === -1) return '';
    mode = 'skip-frame';
    skipPrev = NOT_TERMINATOR;
    return s.slice(end);
  }

  /** Inside a discarded frame: drop characters up to and including the blank line that ends it. */
  function skipFrame(s: string): string {
    let cr = s.indexOf('\r');
    let lf = s.indexOf('\n');
    for (;;) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) {
        skipPrev = s.charCodeAt(s.length - 1);
        return '';
      }
      const prev = end === 0 ? skipPrev : s.charCodeAt(end - 1);
      const c = s.charCodeAt(end);
      if (isLineTerminator(prev) && !(prev === CR && c === LF)) {
        let next = end + 1;
        if (c === CR && s.charCodeAt(next) === LF) next++;
        mode = 'normal';
        lastFed = s.charCodeAt(next - 1);
        return s.slice(next);
      }
      if (cr === end) cr = s.indexOf('\r', end + 1);
      if (lf === end) lf = s.indexOf('\n', end + 1);
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
    streamLength += s.length;
    let rest = s;
    while (rest !== '') {
      if (mode === 'normal') rest = feedNormal(rest);
      else if (mode === 'skip-line') rest = skipLine(rest);
      else rest = skipFrame(rest);
    }
  }

  return {
    feed(chunk) {
      feedText(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
    },
    end() {
      // An incomplete UTF-8 sequence at the very end becomes U+FFFD here.
      feedText(text.decode());
      const last = partial.take();
      const skipped = mode !== 'normal';
      mode = 'normal';
      const fields = last !== '' && last.charCodeAt(0) !== COLON ? [...openFrame, last] : openFrame;
      const elided = openFrameElided > 0 ? `\n... (${openFrameElided} more characters)` : '';
      clearOpenFrame();
      if (skipped) return '';
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

function firstLineTerminator(s: string, from: number): number {
  for (let i = from; i < s.length; i++) if (isLineTerminator(s.charCodeAt(i))) return i;
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
