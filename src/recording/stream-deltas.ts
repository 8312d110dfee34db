/**
 * Scrubbing of secrets that a streamed message spreads over its deltas. The real API
 * streams a content block a few tokens at a time, so a key the model repeats back arrives
 * as `"sk-"`, `"ant-SECRETKE"`, `"Y123..."` in separate `content_block_delta` events: no
 * chunk holds it, and the SSE framing between the pieces hides it from a byte search, yet
 * a client (and a replay) joins them back. Here the string values of each block's deltas
 * (`text`, `partial_json`, `thinking`, any other) are read as the one text they make, and
 * where a secret lies in that text each piece of it is masked in its own event, in place
 * and at the same length: the events, the chunks and their sizes stay as they arrived.
 */

import {
  type ChunkScrubber,
  coverage,
  coveredRuns,
  createChunkScrubber,
  HeldChunks,
  MIN_SECRET_LENGTH,
  pendingFrom,
  textPatterns,
} from './redact.js';

/**
 * An event longer than this is not held to be read, nor are more bytes than this held behind
 * the beginning of a secret a block left open: memory stays bounded whatever an upstream
 * sends. The real API's deltas are a few bytes; a secret begun before is masked as far as it
 * came (see forget).
 */
export const HELD_EVENT_LIMIT = 1024 * 1024;

/** One character of a delta's text and the bytes of the stream it was written with. */
interface Piece {
  /** The text so far of one string field of one block, its last characters only. */
  text: string;
  /** For each character of `text`, where its bytes begin and end in the stream. */
  from: number[];
  to: number[];
}

/** A character already masked: it can be part of no secret found later. */
const MASKED = '\uffff';

/**
 * A scrubber for an event stream (`text/event-stream`) of the messages service: the bytes
 * as createChunkScrubber scrubs them, then each secret that the deltas of one content block
 * spread over several events masked in each of them. Chunks are held until no secret begun
 * in them can still be completed by a later delta (a content block's end settles it), so
 * what is held is the events carrying the last characters of a block that could begin a
 * secret, not the block.
 */
export function createEventStreamScrubber(secrets: readonly string[]): ChunkScrubber {
  const bytes = createChunkScrubber(secrets);
  const patterns = textPatterns(secrets.filter((s) => Buffer.byteLength(s) >= MIN_SECRET_LENGTH));
  if (patterns.literal.length === 0) return bytes;
  const held = new HeldChunks();
  /** Per block and field (`0 text`), its text that could still begin a secret. */
  const fields = new Map<string, Piece>();
  let lineStart = 0;
  let afterCR = false;
  /**
   * Where the open event's first line begins; its data lines, each as its value's start and
   * end in turn (flat: a pair a line was most of the memory of an event of empty lines).
   */
  let eventStart = 0;
  let dataLines: number[] = [];
  /** The open event passed HELD_EVENT_LIMIT: skipped to its end. */
  let skipping = false;
  let scanned = 0;

  const line = (start: number, end: number): void => {
    if (skipping) {
      if (start === end) {
        skipping = false;
        eventStart = scanned;
      }
      return;
    }
    if (start === end) {
      if (dataLines.length > 0) readEvent(dataLines);
      dataLines = [];
      eventStart = scanned;
      return;
    }
    // `data:` or `data: ` then the value.
    const field = 'data:';
    for (let i = 0; i < field.length; i++) if (held.byteAt(start + i) !== field.charCodeAt(i)) return;
    let value = start + field.length;
    if (held.byteAt(value) === 0x20) value++;
    dataLines.push(Math.min(value, end), end);
  };

  const readEvent = (lines: readonly number[]): void => {
    const parts: Buffer[] = [];
    const starts: number[] = [];
    let length = 0;
    for (let k = 0; k < lines.length; k += 2) {
      const a = lines[k]!;
      const b = lines[k + 1]!;
      if (starts.length > 0) {
        parts.push(NEWLINE);
        length++;
      }
      starts.push(length);
      // An empty line adds nothing but its line break: no view of the bytes made for it.
      if (b > a) parts.push(held.read(a, b));
      length += b - a;
    }
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    if (!bytes.includes('content_block_') && !bytes.includes('message_stop')) return;
    let event: unknown;
    try {
      event = JSON.parse(bytes.toString('utf8'));
    } catch {
      return;
    }
    if (typeof event !== 'object' || event === null) return;
    const { type, index } = event as { type?: unknown; index?: unknown };
    // A block (or the message) that ended can complete no secret: what it held of one's beginning is no secret.
    if (type === 'message_stop') fields.clear();
    if (type === 'content_block_stop' && typeof index === 'number')
      for (const key of [...fields.keys()]) if (key.startsWith(`${index} `)) fields.delete(key);
    if (type !== 'content_block_delta' || typeof index !== 'number') return;
    // Where data offset `i` is in the stream: data lines never hold a string's line break.
    // Offsets are asked for in order, so the line is found by moving on from the last one
    // (halving when asked for one before it), not by a walk back over every line for each
    // character (60,000 empty data lines behind a long delta took seconds).
    let row = 0;
    const at = (i: number): number => {
      if (starts[row]! > i) {
        let hi = row;
        row = 0;
        while (row < hi) {
          const mid = (row + hi + 1) >> 1;
          if (starts[mid]! > i) hi = mid - 1;
          else row = mid;
        }
      }
      while (row + 1 < starts.length && starts[row + 1]! <= i) row++;
      return lines[2 * row]! + (i - starts[row]!);
    };
    // One character a byte: where a string is in it is where its bytes are.
    const data = bytes.toString('latin1');
    for (const string of deltaStrings(data))
      take(`${index} ${string.path}`, data, string.start, string.end, at);
  };

  /** Add the characters of one string value to its field's text and mask what secrets they complete. */
  const take = (key: string, data: string, start: number, end: number, at: (i: number) => number): void => {
    const piece = fields.get(key);
    const value = stringBody(data, start, end);
    if (value === undefined) return;
    const text = (piece?.text ?? '') + value;
    const edges = coverage(text, patterns, text.length);
    // The usual delta: no secret in it, and its end begins none. Where its characters lie is not needed.
    if (edges === undefined && pendingFrom(text, patterns) >= text.length) {
      fields.delete(key);
      return;
    }
    const from = piece?.from ?? [];
    const to = piece?.to ?? [];
    const before = from.length;
    decodeJsonString(data, start, end, (a, b) => {
      from.push(at(a));
      to.push(at(b - 1) + 1);
    });
    // Bytes that are no UTF-8 decode to as many characters as the decoder chose: each of
    // them then stands for the whole string, masked whole where a secret touches it.
    if (from.length - before !== value.length) {
      from.length = before;
      to.length = before;
      const first = at(start);
      const last = at(end - 1) + 1;
      for (let k = 0; k < value.length; k++) {
        from.push(first);
        to.push(last);
      }
    }
    let masked = text;
    if (edges !== undefined) {
      for (const [a, b] of coveredRuns(edges)) {
        held.mask(rangesOf(from, to, a, b));
        masked = masked.slice(0, a) + MASKED.repeat(b - a) + masked.slice(b);
      }
    }
    const keep = pendingFrom(masked, patterns);
    if (keep >= masked.length) fields.delete(key);
    else fields.set(key, { text: masked.slice(keep), from: from.slice(keep), to: to.slice(keep) });
  };

  /** Fields that could still complete a secret are given up on: what they hold of one is masked. */
  const forget = (): void => {
    for (const piece of fields.values()) held.mask(rangesOf(piece.from, piece.to, 0, piece.text.length));
    fields.clear();
  };

  /** Read the lines `chunk` ends (it lies at `base` in the stream). */
  const scan = (chunk: Buffer, base: number): void => {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b !== 0x0a && b !== 0x0d) {
        afterCR = false;
        continue;
      }
      const at = base + i;
      if (b === 0x0a && afterCR) {
        afterCR = false;
        lineStart = at + 1;
        continue;
      }
      afterCR = b === 0x0d;
      scanned = at + 1;
      line(lineStart, at);
      lineStart = at + 1;
    }
    scanned = base + chunk.length;
    if (!skipping && held.end - eventStart > HELD_EVENT_LIMIT) {
      skipping = true;
      dataLines = [];
      forget();
    } else if (held.end - needed() > HELD_EVENT_LIMIT) {
      // A block's beginning of a secret left open while other events pile up behind it.
      forget();
    }
  };

  /** Where the bytes held must begin: the open event, and the characters that may begin a secret. */
  const needed = (): number => {
    let from = skipping ? held.end : eventStart;
    for (const piece of fields.values()) if (piece.from.length > 0) from = Math.min(from, piece.from[0]!);
    return from;
  };

  const feed = (chunks: readonly Buffer[]): void => {
    for (const chunk of chunks) {
      held.add(chunk);
      scan(chunk, held.end - chunk.length);
    }
  };

  return {
    push(chunk) {
      feed(bytes.push(chunk));
      return held.release(needed());
    },
    end() {
      feed(bytes.end());
      // An event the stream did not end with a blank line is read all the same: a client may.
      if (!skipping && lineStart < held.end) line(lineStart, held.end);
      if (!skipping && dataLines.length > 0) readEvent(dataLines);
      return held.release(held.end);
    },
    idle() {
      feed(bytes.idle());
      return held.release(needed());
    },
  };
}

const NEWLINE = Buffer.from('\n');

/** Whether a `Content-Type` names an event stream. */
export function isEventStream(contentType: string | readonly string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return typeof value === 'string' && /^\s*text\/event-stream\s*(;|$)/i.test(value);
}

/** The ranges of stream bytes that characters `a` to `b` of a field's text were written with. */
function rangesOf(from: readonly number[], to: readonly number[], a: number, b: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let i = a; i < b; i++) {
    const last = ranges.at(-1);
    // The two halves of a surrogate pair share their bytes.
    if (last !== undefined && from[i]! < last[1]) last[1] = Math.max(last[1], to[i]!);
    else ranges.push([from[i]!, to[i]!]);
  }
  return ranges;
}

/**
 * The string values under `delta` of an event's JSON (`data`, its bytes as latin1), but the
 * delta's `type`: where each one's characters are (between its quotes) and its path.
 */
function deltaStrings(data: string): { path: string; start: number; end: number }[] {
  const out: { path: string; start: number; end: number }[] = [];
  const stack: { key: string | undefined; object: boolean; expectKey: boolean }[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === '{' || c === '[') stack.push({ key: undefined, object: c === '{', expectKey: c === '{' });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
    } else if (c === '"') {
      let j = i + 1;
      while (j < data.length && data[j] !== '"') j += data[j] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.object && top.expectKey) {
        // Keys deeper than a path reaches name nothing: left unread.
        if (stack.length <= DELTA_PATH_DEPTH) top.key = stringBody(data, i + 1, j) ?? '';
        top.expectKey = false;
      } else if (stack.length >= 2 && stack[0]!.key === 'delta') {
        const path = pathOf(stack);
        if (path !== 'delta.type') out.push({ path, start: i + 1, end: j });
      }
      i = j;
    }
  }
  return out;
}

/**
 * How many levels of an event's JSON a string's path names (the real deltas' strings lie two
 * or three deep). The strings below are read all the same, as one text under the path of
 * their ancestor at this depth, so that a secret spread over them is still found; naming
 * every level cost each string the whole depth (20,000 levels: 45 s for a 120 KB event).
 */
export const DELTA_PATH_DEPTH = 8;

/** The path of a string whose enclosing containers are `stack`, cut at DELTA_PATH_DEPTH. */
function pathOf(stack: readonly { key: string | undefined; object: boolean }[]): string {
  const names: (string | undefined)[] = [];
  for (let k = 0; k < Math.min(stack.length, DELTA_PATH_DEPTH); k++)
    names.push(stack[k]!.object ? stack[k]!.key : '[]');
  if (stack.length > DELTA_PATH_DEPTH) names.push('...');
  return names.join('.');
}

/** A JSON string's body (`data` from `start` to `end`, bytes as latin1), decoded; undefined if it is not one. */
function stringBody(data: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(`"${Buffer.from(data.slice(start, end), 'latin1').toString('utf8')}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * For each UTF-16 unit of a JSON string's body (`data` from `start` to `end`, bytes as
 * latin1), in order, where the bytes it was written with begin and end in `data` (the two
 * units of a character beyond the BMP written as UTF-8 share its four bytes).
 */
function decodeJsonString(
  data: string,
  start: number,
  end: number,
  unit: (from: number, to: number) => void,
): void {
  let i = start;
  while (i < end) {
    const b = data.charCodeAt(i);
    if (b === 0x5c) {
      const size = data.charCodeAt(i + 1) === 0x75 ? 6 : 2;
      unit(i, i + size);
      i += size;
      continue;
    }
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    const to = Math.min(end, i + size);
    unit(i, to);
    if (size === 4) unit(i, to);
    i = to;
  }
}
