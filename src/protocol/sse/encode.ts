/** Line endings an SSE stream may use; the mock can serve each dialect. */
export type LineEnding = '\n' | '\r\n' | '\r';

/**
 * One SSE frame: `event: <name>`, one `data:` line per line of data, then a blank line.
 * Multi-line data is split on any line terminator, as a decoder joins it back with `\n`.
 */
export function encodeFrame(event: string | undefined, data: string, eol: LineEnding = '\n'): string {
  let out = event === undefined ? '' : `event: ${event}${eol}`;
  if (data.indexOf('\n') === -1 && data.indexOf('\r') === -1) {
    out += `data: ${data}${eol}`;
  } else {
    for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}${eol}`;
  }
  return out + eol;
}

/** A frame for an object whose `type` is the event name (the messages stream rule). */
export function encodeEvent(payload: { type: string }, eol: LineEnding = '\n'): string {
  return encodeFrame(payload.type, JSON.stringify(payload), eol);
}

/** A comment frame (`: text`), used for keep-alive. */
export function encodeComment(text: string, eol: LineEnding = '\n'): string {
  return `:${text === '' ? '' : ` ${text}`}${eol}${eol}`;
}
