/** How `mapJsonValue` rewrites a value: its strings, its keys, and whole members it replaces. */
export interface JsonValueMapping {
  /** Every string value (keys are not values). */
  string(text: string): string;
  /** Every object key; kept as it is when absent. */
  key?(name: string): string;
  /**
   * A member's replacement, chosen by its key as it arrived and its value before any mapping:
   * `{ value }` puts `value` in its place unwalked; `undefined` walks it as usual.
   */
  member?(name: string, value: unknown): { value: unknown } | undefined;
}

/**
 * A copy of a JSON-like value with every string passed through `mapping` (and keys, and whole
 * members, when it says so); numbers, booleans, null and the shape stay. Iterative, as what a
 * target sends, and the evidence quoting it, may nest deeper than the call stack.
 */
export function mapJsonValue<T>(value: T, mapping: JsonValueMapping): T {
  const root: Record<string, unknown> = {};
  const work: { from: unknown; into: Record<string | number, unknown>; at: string | number }[] = [
    { from: value, into: root, at: 'v' },
  ];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { from, into, at } = item;
    if (typeof from === 'string') into[at] = mapping.string(from);
    else if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      into[at] = out;
      const slots = out as unknown as Record<number, unknown>;
      for (let i = 0; i < from.length; i++) work.push({ from: from[i], into: slots, at: i });
    } else if (from !== null && typeof from === 'object') {
      const out: Record<string, unknown> = {};
      into[at] = out;
      for (const [k, v] of Object.entries(from)) {
        const name = mapping.key === undefined ? k : mapping.key(k);
        const replaced = mapping.member?.(k, v);
        if (replaced !== undefined) out[name] = replaced.value;
        else work.push({ from: v, into: out, at: name });
      }
    } else into[at] = from;
  }
  return root.v as T;
}
