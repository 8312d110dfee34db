/**
 * Semantic comparison of JSON values, the one comparison every suite uses when it asks
 * "did the target send (or print) the same thing?". It lists every difference, each with
 * its path and both values, so one report shows all that differs instead of the first.
 *
 * Equivalence of wire objects (a documented default written out or left out, a shorthand
 * and its long form) is not decided here: the caller first brings both sides to one form
 * with the normalizer of the object (`src/protocol/messages/defaults.ts`,
 * `src/protocol/mcp/defaults.ts`), then compares. Key order never matters; array order does.
 */

export type DifferenceKind = 'missing' | 'extra' | 'changed';

export interface Difference {
  /** JSONPath-like location: `$.messages[2].content[0].is_error`. */
  readonly path: string;
  readonly kind: DifferenceKind;
  /** Absent for `extra`. */
  readonly expected?: unknown;
  /** Absent for `missing`. */
  readonly actual?: unknown;
}

export interface CompareOptions {
  /**
   * Keys present in `actual` only: `report` (every extra key is a difference) or
   * `tolerate` (the default: a peer may add fields the rule does not name). A function
   * decides per path (the path of the object holding the key, and the key).
   */
  readonly extra?: 'report' | 'tolerate' | ((objectPath: string, key: string) => boolean);
  /** Stop after this many differences (default 100): a huge mismatch stays readable. */
  readonly limit?: number;
}

/** Every difference between `expected` and `actual`, in document order (empty when equivalent). */
export function differences(expected: unknown, actual: unknown, options: CompareOptions = {}): Difference[] {
  const out: Difference[] = [];
  const limit = options.limit ?? 100;
  const reportExtra = extraRule(options.extra);
  // An explicit stack, not recursion: values may come from a target and nest deeply.
  const stack: Array<{ e: unknown; a: unknown; path: string }> = [{ e: expected, a: actual, path: '$' }];
  while (stack.length > 0 && out.length < limit) {
    const { e, a, path } = stack.pop() as { e: unknown; a: unknown; path: string };
    if (Object.is(e, a)) continue;
    if (Array.isArray(e)) {
      if (!Array.isArray(a) || a.length !== e.length) {
        out.push({ path, kind: 'changed', expected: e, actual: a });
        continue;
      }
      for (let i = e.length - 1; i >= 0; i--) stack.push({ e: e[i], a: a[i], path: `${path}[${i}]` });
      continue;
    }
    if (isObject(e)) {
      if (!isObject(a)) {
        out.push({ path, kind: 'changed', expected: e, actual: a });
        continue;
      }
      const children: Array<{ e: unknown; a: unknown; path: string }> = [];
      const found: Difference[] = [];
      for (const key of Object.keys(e)) {
        const at = `${path}${member(key)}`;
        if (!Object.hasOwn(a, key)) found.push({ path: at, kind: 'missing', expected: e[key] });
        else children.push({ e: e[key], a: a[key], path: at });
      }
      for (const key of Object.keys(a)) {
        if (!Object.hasOwn(e, key) && reportExtra(path, key)) {
          found.push({ path: `${path}${member(key)}`, kind: 'extra', actual: a[key] });
        }
      }
      // Missing and extra keys of this object first, then its members in key order.
      out.push(...found.slice(0, limit - out.length));
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as (typeof children)[number]);
      continue;
    }
    out.push({ path, kind: 'changed', expected: e, actual: a });
  }
  return out;
}

/** One line per difference: `$.a.b: expected 1, got 2` / `missing (expected ...)` / `unexpected ...`. */
export function describeDifferences(found: readonly Difference[], max = 10): string {
  const lines = found.slice(0, max).map(describeDifference);
  if (found.length > max) lines.push(`... and ${found.length - max} more`);
  return lines.join('; ');
}

export function describeDifference(d: Difference): string {
  switch (d.kind) {
    case 'missing':
      return `${d.path}: missing (expected ${brief(d.expected)})`;
    case 'extra':
      return `${d.path}: not expected (got ${brief(d.actual)})`;
    case 'changed':
      return `${d.path}: expected ${brief(d.expected)}, got ${brief(d.actual)}`;
  }
}

function extraRule(extra: CompareOptions['extra']): (objectPath: string, key: string) => boolean {
  if (typeof extra === 'function') return extra;
  return extra === 'report' ? () => true : () => false;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function member(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function brief(v: unknown): string {
  if (v === undefined) return 'nothing';
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length <= 200 ? s : `${s.slice(0, 200)}... (${s.length} chars)`;
}
