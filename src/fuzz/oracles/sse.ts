import { createFrameDecoder, type SseFrame } from '../../protocol/sse/index.js';

/** Everything a frame decoder reports about one byte stream. */
export interface DecodedStream {
  frames: SseFrame[];
  comments: string[];
  invalidLines: string[];
  unterminated: string;
}

/** Run the real decoder over `chunks`, recording every callback. */
export function decodeWithCallbacks(chunks: Iterable<Uint8Array | string>): DecodedStream {
  const out: DecodedStream = { frames: [], comments: [], invalidLines: [], unterminated: '' };
  const decoder = createFrameDecoder({
    onFrame: (f) => out.frames.push(f),
    onComment: (c) => out.comments.push(c),
    onInvalidLine: (line) => out.invalidLines.push(line),
  });
  for (const c of chunks) decoder.feed(c);
  out.unterminated = decoder.end();
  return out;
}

function fieldValue(line: string, colon: number): string {
  if (colon === -1) return '';
  return line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
}

/**
 * The SSE parsing algorithm of the WHATWG HTML standard written out naively over the
 * whole stream at once: the oracle the chunked, streaming decoder is compared with.
 * Two deliberate choices match the decoder's documented contract: `id` belongs to the
 * frame it was sent in (eventsource-parser does not carry it over), and a `retry` that
 * is not all digits is reported as an invalid line.
 */
export function referenceDecode(bytes: Uint8Array): DecodedStream {
  // TextDecoder strips exactly one leading BOM, as the standard says.
  const lines = new TextDecoder('utf-8').decode(bytes).split(/\r\n|\r|\n/);
  const partial = lines.pop() ?? '';
  const out: DecodedStream = { frames: [], comments: [], invalidLines: [], unterminated: '' };
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let open: string[] = [];
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) out.frames.push({ event, data: data.join('\n'), id });
      data = [];
      event = undefined;
      id = undefined;
      open = [];
      continue;
    }
    if (line.startsWith(':')) {
      out.comments.push(fieldValue(line, 0));
      continue;
    }
    open.push(line);
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = fieldValue(line, colon);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value === '' ? undefined : value;
    else if (field === 'id') id = value.includes('\0') ? id : value;
    else if (field !== 'retry' || !/^\d+$/.test(value)) out.invalidLines.push(line);
  }
  if (partial !== '' && !partial.startsWith(':')) open.push(partial);
  out.unterminated = open.join('\n');
  return out;
}
