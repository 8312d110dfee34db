/**
 * A copy of a JSON-like value (a check's outcome: message, expected, actual, evidence) with
 * every string value passed through `map`; keys, numbers and the shape stay. Iterative, as
 * evidence may nest deep.
 */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  const root: { v: unknown } = { v: undefined };
  const work: { from: unknown; into: Record<string | number, unknown>; at: string | number }[] = [
    { from: value, into: root, at: 'v' },
  ];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { from, into, at } = item;
    if (typeof from === 'string') into[at] = map(from);
    else if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      into[at] = out;
      const slots = out as unknown as Record<number, unknown>;
      for (let i = 0; i < from.length; i++) work.push({ from: from[i], into: slots, at: i });
    } else if (from !== null && typeof from === 'object') {
      const out: Record<string, unknown> = {};
      into[at] = out;
      for (const [k, v] of Object.entries(from)) work.push({ from: v, into: out, at: k });
    } else into[at] = from;
  }
  return root.v as T;
}
