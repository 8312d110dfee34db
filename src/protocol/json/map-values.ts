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

interface Work {
  from: unknown;
  into: Record<string | number, unknown>;
  at: string | number;
}

/**
 * `into[at] = value` as JSON.parse makes a member: an own property even for `__proto__`,
 * which an assignment would take as the object's prototype (the member lost).
 */
function put(into: Record<string | number, unknown>, at: string | number, value: unknown): void {
  if (at === '__proto__') {
    Object.defineProperty(into, at, { value, enumerable: true, writable: true, configurable: true });
  } else into[at] = value;
}

/**
 * A copy of a JSON-like value with every string passed through `mapping` (and keys, and whole
 * members, when it says so); numbers, booleans, null, the shape and the order of keys stay.
 * Iterative, as what a target sends, and the evidence quoting it, may nest deeper than the
 * call stack. Two keys that map to one name make one member, in the first one's place, with
 * the last one's value (as JSON.parse keeps a repeated key).
 */
export function mapJsonValue<T>(value: T, mapping: JsonValueMapping): T {
  const root: Record<string, unknown> = {};
  const work: Work[] = [{ from: value, into: root, at: 'v' }];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { from, into, at } = item;
    if (typeof from === 'string') put(into, at, mapping.string(from));
    else if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      put(into, at, out);
      const slots = out as unknown as Record<number, unknown>;
      for (let i = from.length - 1; i >= 0; i--) work.push({ from: from[i], into: slots, at: i });
    } else if (from !== null && typeof from === 'object') {
      const out: Record<string, unknown> = {};
      put(into, at, out);
      // Each key is made here, in order, before its value is walked (the work is a stack:
      // values filled in later, keys made then, came out in reverse order).
      const pending: Work[] = [];
      // Only mapped keys can meet: the keys of one object are distinct.
      const named = mapping.key === undefined ? undefined : new Set<string>();
      for (const [k, v] of Object.entries(from)) {
        const name = mapping.key === undefined ? k : mapping.key(k);
        if (named?.has(name)) {
          const earlier = pending.findIndex((w) => w.at === name);
          if (earlier >= 0) pending.splice(earlier, 1);
        }
        named?.add(name);
        const replaced = mapping.member?.(k, v);
        put(out, name, replaced?.value);
        if (replaced === undefined) pending.push({ from: v, into: out, at: name });
      }
      for (let i = pending.length - 1; i >= 0; i--) work.push(pending[i]!);
    } else put(into, at, from);
  }
  return root.v as T;
}
