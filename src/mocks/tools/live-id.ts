import type { JsonRpcId } from '../../protocol/jsonrpc/index.js';

const Ch = {
  quote: 0x22,
  backslash: 0x5c,
  comma: 0x2c,
  colon: 0x3a,
  openBrace: 0x7b,
  closeBrace: 0x7d,
  openBracket: 0x5b,
  closeBracket: 0x5d,
} as const;

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the string that opens at `i` (a `"`), or -1 when it never closes. */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === Ch.backslash) j++;
    else if (c === Ch.quote) return j + 1;
  }
  return -1;
}

/**
 * The index after the value that starts at `i`, or -1 when the text ends first. A loop with
 * a depth counter, not recursion: a recorded reply may nest deeper than the call stack.
 */
function skipValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === Ch.quote) return skipString(text, i);
  if (first !== Ch.openBrace && first !== Ch.openBracket) {
    let j = i;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === Ch.comma || c === Ch.closeBrace || c === Ch.closeBracket || isJsonSpace(c)) break;
      j++;
    }
    return j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === Ch.quote) {
      const end = skipString(text, j);
      if (end < 0) return -1;
      j = end - 1;
    } else if (c === Ch.openBrace || c === Ch.openBracket) depth++;
    else if (c === Ch.closeBrace || c === Ch.closeBracket) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * Where the values of the top-level members named `name` are in a JSON object's text
 * (`[start, end)` each; every one of them, as a key may be repeated), or undefined when the
 * text is not one object whose members can be walked. Keys are compared as decoded, so
 * `"\u0069d"` is `id`. Only the structure is read: a value's own text is never parsed.
 */
export function topLevelMemberSpans(text: string, name: string): [number, number][] | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== Ch.openBrace) return undefined;
  i = skipSpace(text, i + 1);
  const spans: [number, number][] = [];
  if (text.charCodeAt(i) === Ch.closeBrace) return skipSpace(text, i + 1) === text.length ? spans : undefined;
  for (;;) {
    if (text.charCodeAt(i) !== Ch.quote) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    let key: unknown;
    try {
      key = JSON.parse(text.slice(i, keyEnd));
    } catch {
      return undefined;
    }
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== Ch.colon) return undefined;
    const start = skipSpace(text, i + 1);
    const end = skipValue(text, start);
    if (end < 0) return undefined;
    if (key === name) spans.push([start, end]);
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === Ch.closeBrace) return skipSpace(text, i + 1) === text.length ? spans : undefined;
    if (c !== Ch.comma) return undefined;
    i = skipSpace(text, i + 1);
  }
}

/**
 * A recorded reply's text with the live request's id in place of the recorded one: every
 * other byte as recorded (numbers past double precision, `1.50`, escapes, repeated keys and
 * whitespace are what the server sent, and a replay sends them again). Every top-level `id`
 * member is replaced, so a reader that keeps the first of repeated keys and one that keeps the
 * last both see the live id. `value` is the recorded text parsed; it is written out again
 * with the live id only when the text has no top-level `id` to replace (an object whose id
 * the recording's reader found some other way cannot be spliced into).
 */
export function withLiveId(text: string, value: unknown, liveId: JsonRpcId | undefined): string {
  const spans = topLevelMemberSpans(text, 'id');
  if (spans === undefined || spans.length === 0) return JSON.stringify({ ...(value as object), id: liveId });
  const id = JSON.stringify(liveId ?? null);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + id;
    from = end;
  }
  return out + text.slice(from);
}
