import { createFrameDecoder, type SseFrame, type SseLimits } from '../../protocol/sse/index.js';

/** A limit error as both decoders report it: which limit, where the line or frame starts, frames before it. */
export interface LimitHit {
  limit: keyof SseLimits;
  offset: number;
  afterFrames: number;
}

/** Everything a frame decoder reports about one byte stream. */
export interface DecodedStream {
  frames: SseFrame[];
  comments: string[];
  invalidLines: string[];
  unterminated: string;
  limitHits: LimitHit[];
}

/** Run the real decoder over `chunks`, recording every callback. */
export function decodeWithCallbacks(
  chunks: Iterable<Uint8Array | string>,
  limits?: SseLimits,
): DecodedStream {
  const out: DecodedStream = { frames: [], comments: [], invalidLines: [], unterminated: '', limitHits: [] };
  const decoder = createFrameDecoder({
    onFrame: (f) => out.frames.push(f),
    onComment: (c) => out.comments.push(c),
    onInvalidLine: (line) => out.invalidLines.push(line),
    onLimit: (e) => {
      if (e.seen <= e.value) throw new Error(`a limit error with ${e.seen} seen, not over ${e.value}`);
      out.limitHits.push({ limit: e.limit, offset: e.offset, afterFrames: e.afterFrames });
    },
    ...(limits === undefined ? {} : { limits }),
  });
  for (const c of chunks) decoder.feed(c);
  out.unterminated = decoder.end();
  return out;
}

function fieldValue(line: string, colon: number): string {
  if (colon === -1) return '';
  return line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
}

/** The lines of a text with where each starts; the last, unterminated one apart. */
function linesOf(text: string): {
  lines: { text: string; at: number }[];
  partial: { text: string; at: number };
} {
  const lines: { text: string; at: number }[] = [];
  const terminator = /\r\n|\r|\n/g;
  let at = 0;
  for (let m = terminator.exec(text); m !== null; m = terminator.exec(text)) {
    lines.push({ text: text.slice(at, m.index), at });
    at = m.index + m[0].length;
  }
  return { lines, partial: { text: text.slice(at), at } };
}

/**
 * The SSE parsing algorithm of the WHATWG HTML standard written out naively over the
 * whole stream at once: the oracle the chunked, streaming decoder is compared with.
 * Two deliberate choices match the decoder's documented contract: `id` belongs to the
 * frame it was sent in (eventsource-parser does not carry it over), and a `retry` that
 * is not all digits is reported as an invalid line. With `limits`, the decoder's: a line
 * longer than maxLineLength, or a field line that takes its frame's field lines (one
 * terminator each) past maxFrameLength, is a limit hit, and the frame it is in is
 * dropped up to the blank line that ends it, nothing in between reported.
 */
export function referenceDecode(bytes: Uint8Array, limits: SseLimits = {}): DecodedStream {
  const maxLine = limits.maxLineLength ?? Number.POSITIVE_INFINITY;
  const maxFrame = limits.maxFrameLength ?? Number.POSITIVE_INFINITY;
  // TextDecoder strips exactly one leading BOM, as the standard says.
  const { lines, partial } = linesOf(new TextDecoder('utf-8').decode(bytes));
  const out: DecodedStream = { frames: [], comments: [], invalidLines: [], unterminated: '', limitHits: [] };
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let open: string[] = [];
  let frameLength = 0;
  let frameStart = 0;
  let skipping = false;
  const clear = () => {
    data = [];
    event = undefined;
    id = undefined;
    open = [];
    frameLength = 0;
  };
  const hit = (limit: keyof SseLimits, offset: number) => {
    out.limitHits.push({ limit, offset, afterFrames: out.frames.length });
    clear();
    skipping = true;
  };
  for (const { text: line, at } of lines) {
    if (skipping) {
      if (line === '') skipping = false;
      continue;
    }
    if (line.length > maxLine) {
      hit('maxLineLength', at);
      continue;
    }
    if (line === '') {
      if (data.length > 0) out.frames.push({ event, data: data.join('\n'), id });
      clear();
      continue;
    }
    if (line.startsWith(':')) {
      out.comments.push(fieldValue(line, 0));
      continue;
    }
    if (frameLength + line.length + 1 > maxFrame) {
      hit('maxFrameLength', frameLength > 0 ? frameStart : at);
      continue;
    }
    if (frameLength === 0) frameStart = at;
    frameLength += line.length + 1;
    open.push(line);
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = fieldValue(line, colon);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value === '' ? undefined : value;
    else if (field === 'id') id = value.includes('\0') ? id : value;
    else if (field !== 'retry' || !/^\d+$/.test(value)) out.invalidLines.push(line);
  }
  if (skipping) return out;
  if (partial.text.length > maxLine) {
    hit('maxLineLength', partial.at);
    return out;
  }
  if (partial.text !== '' && !partial.text.startsWith(':')) open.push(partial.text);
  out.unterminated = open.join('\n');
  return out;
}
