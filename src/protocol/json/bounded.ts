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
    return {
      ok: false,
      reason: 'syntax',
      message: `Unexpected token ${JSON.stringify(text.charAt(first))} at position ${first}: not JSON`,
    };
  }
  const { exceededAt } = jsonDepth(text, maxDepth);
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
