/**
 * JSON from a target, parsed within limits. `JSON.parse` itself is iterative in V8, but
 * everything after it that walks the value (zod, JSON.stringify, comparisons) recurses, and
 * a 60 MB line of `[[[[...` parsed into a value kills the process that walks it. So the text
 * is measured first, by a linear scan that keeps no stack: nesting depth and size are known
 * before a value exists.
 */

export interface JsonLimits {
  /** Deepest nesting of arrays and objects accepted (default 512). */
  readonly maxDepth?: number;
  /** Largest text accepted, in UTF-16 code units (default 16 MiB). */
  readonly maxLength?: number;
}

export const DEFAULT_JSON_LIMITS = { maxDepth: 512, maxLength: 16 * 1024 * 1024 } as const;

export type BoundedJson =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      /** `too-deep` and `too-long` name the limit that was hit; `syntax` is JSON.parse's verdict. */
      readonly reason: 'too-deep' | 'too-long' | 'syntax';
      /** The limit with its name, or JSON.parse's message: "JSON nested deeper than the 512-level limit (maxDepth): level 513 at offset 512". */
      readonly message: string;
    };

/**
 * The nesting depth of a JSON text, stopping as soon as it passes `limit` (so a huge text
 * costs only up to the point where it is too deep). Brackets inside strings do not count.
 * Returns the depth reached, and the offset where `limit` was passed (or -1).
 */
export function jsonDepth(
  text: string,
  limit = Number.POSITIVE_INFINITY,
): { depth: number; exceededAt: number } {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return { depth: max, exceededAt: i };
      }
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return { depth: max, exceededAt: -1 };
}

/** Characters JSON allows before a value (JSON.parse skips them too). */
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Where a text is refused as not JSON: the character and its position. */
export interface PrefixRefusal {
  readonly char: string;
  readonly position: number;
}

const LITERALS: Readonly<Record<string, string>> = { t: 'true', f: 'false', n: 'null' };
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Whether every text that starts with `head` is not JSON, judged from the head alone: its
 * first character starts no value, or a top-level literal or number in it is misspelt or
 * followed by more than whitespace (`not json`, `2026 started`). Undefined when the head
 * cannot tell (an object, array or string; a value running to the head's end; a character
 * String.trim() would drop, so the line may be blank). A reader of long lines can refuse
 * one without decoding it whole.
 */
export function prefixRefusal(head: string): PrefixRefusal | undefined {
  let at = 0;
  while (at < head.length && isJsonSpace(head.charCodeAt(at))) at++;
  if (at >= head.length) return undefined;
  const c = head.charCodeAt(at);
  if (c >= 0x80 || c === 0x0b || c === 0x0c) return undefined;
  if (!canStartValue(c)) return { char: head.charAt(at), position: at };
  let end: number;
  const literal = LITERALS[head.charAt(at)];
  if (literal !== undefined) {
    for (let k = 0; k < literal.length; k++) {
      if (at + k >= head.length) return undefined;
      if (head.charAt(at + k) !== literal.charAt(k)) return { char: head.charAt(at + k), position: at + k };
    }
    end = at + literal.length;
  } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(head);
    if (m === null) return undefined;
    end = at + m[0].length;
    // Where V8 stops in `1.x` or `1e` is not worth guessing: only a clean end is judged.
    if (end < head.length && /[0-9.eE+-]/.test(head.charAt(end))) return undefined;
  } else return undefined;
  while (end < head.length && isJsonSpace(head.charCodeAt(end))) end++;
  return end < head.length ? { char: head.charAt(end), position: end } : undefined;
}

/** Why a text is not JSON, at `char` in `position` (parseJsonBounded's words for a first character no value starts with). */
export function cannotStartMessage(char: string, position: number): string {
  return `Unexpected token ${JSON.stringify(char)} at position ${position}: not JSON`;
}

/** Whether a JSON value can start with this character: `{ [ " - 0-9 t f n`. */
function canStartValue(c: number): boolean {
  return (
    c === 0x7b ||
    c === 0x5b ||
    c === 0x22 ||
    c === 0x2d ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x74 ||
    c === 0x66 ||
    c === 0x6e
  );
}

/**
 * Parse `text` as JSON unless it is longer or deeper than the limits; never throws. Text
 * that cannot start a JSON value is refused without calling JSON.parse, so a flood of log
 * lines costs no exception each.
 */
export function parseJsonBounded(text: string, limits: JsonLimits = {}): BoundedJson {
  const maxLength = limits.maxLength ?? DEFAULT_JSON_LIMITS.maxLength;
  const maxDepth = limits.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth;
  if (text.length > maxLength) {
    return {
      ok: false,
      reason: 'too-long',
      message: `JSON text longer than the ${maxLength}-character limit (maxLength): ${text.length} characters`,
    };
  }
  let first = 0;
  while (first < text.length && isJsonSpace(text.charCodeAt(first))) first++;
  if (first < text.length && !canStartValue(text.charCodeAt(first))) {
    return { ok: false, reason: 'syntax', message: cannotStartMessage(text.charAt(first), first) };
  }
  // Each level opens with a bracket of its own, so a text no longer than the limit cannot pass
  // it: the scan is skipped for most of what arrives (an SSE delta frame is ~150 characters).
  const exceededAt = text.length <= maxDepth ? -1 : jsonDepth(text, maxDepth).exceededAt;
  if (exceededAt !== -1) {
    return {
      ok: false,
      reason: 'too-deep',
      message: `JSON nested deeper than the ${maxDepth}-level limit (maxDepth): level ${maxDepth + 1} at offset ${exceededAt}`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, reason: 'syntax', message: e instanceof Error ? e.message : String(e) };
  }
}
