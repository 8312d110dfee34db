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
  const see = (line: string) => {
    if (found === undefined && pick(line)) found = line.slice(0, MAX_KEPT_CHARS);
  };
  const take = (text: string) => {
    if (found !== undefined) return;
    const lines = (partial + text).split(/\r\n|\r|\n/);
    partial = lines.pop() ?? '';
    for (const line of lines) see(line);
    // A line without end is judged by its start, and its rest is not kept.
    if (partial.length > MAX_LINE_CHARS) {
      see(partial);
      partial = partial.slice(0, MAX_LINE_CHARS);
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
    },
    get found() {
      return found;
    },
  };
}
