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
      /** What was expected and what arrived, for a message: "nesting depth at most 512, got more at offset 513". */
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

/** Parse `text` as JSON unless it is longer or deeper than the limits; never throws. */
export function parseJsonBounded(text: string, limits: JsonLimits = {}): BoundedJson {
  const maxLength = limits.maxLength ?? DEFAULT_JSON_LIMITS.maxLength;
  const maxDepth = limits.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth;
  if (text.length > maxLength) {
    return {
      ok: false,
      reason: 'too-long',
      message: `JSON text of at most ${maxLength} characters expected, got ${text.length}`,
    };
  }
  const { exceededAt } = jsonDepth(text, maxDepth);
  if (exceededAt !== -1) {
    return {
      ok: false,
      reason: 'too-deep',
      message: `JSON nested at most ${maxDepth} levels deep expected, got deeper at offset ${exceededAt}`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, reason: 'syntax', message: e instanceof Error ? e.message : String(e) };
  }
}
