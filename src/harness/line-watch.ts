import { StringDecoder } from 'node:string_decoder';

/** Characters of one line a watch looks at: a longer line is judged by its start. */
const MAX_LINE_CHARS = 64 * 1024;
/** Characters of the line a watch keeps. */
const MAX_KEPT_CHARS = 1000;

/**
 * Looks at every line of a stream whose middle a capture may drop (a target's stderr, of
 * which only the head and the tail are kept), and keeps the first line `pick` accepts: a
 * check that looks for one line judges the whole stream, not what the capture kept.
 */
export interface LineWatch {
  push(chunk: Uint8Array): void;
  /** The first line picked (cut to 1,000 characters), once the stream ended: call end() first. */
  readonly found: string | undefined;
  end(): void;
}

export function createLineWatch(pick: (line: string) => boolean): LineWatch {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let found: string | undefined;
  /** The current line passed MAX_LINE_CHARS: it was judged by its start, the rest of it is skipped. */
  let overlong = false;
  const see = (line: string) => {
    if (found === undefined && pick(line)) found = line.slice(0, MAX_KEPT_CHARS);
  };
  // Only the new text is split: a line written a character at a time costs its length once,
  // not once per chunk.
  const take = (text: string) => {
    if (found !== undefined || text === '') return;
    const lines = text.split(/\r\n|\r|\n/);
    const rest = lines.pop() ?? '';
    if (lines.length > 0) {
      if (overlong) lines.shift();
      else lines[0] = partial + lines[0];
      partial = '';
      overlong = false;
      for (const line of lines) see(line);
    }
    if (overlong) return;
    partial += rest;
    // A line without end is judged by its start, once, and its rest is not kept.
    if (partial.length > MAX_LINE_CHARS) {
      see(partial.slice(0, MAX_LINE_CHARS));
      partial = '';
      overlong = true;
    }
  };
  return {
    push(chunk) {
      take(decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    },
    end() {
      take(decoder.end());
      if (partial !== '') see(partial);
      partial = '';
      overlong = false;
    },
    get found() {
      return found;
    },
  };
}
