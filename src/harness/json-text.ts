/**
 * A value as JSON text that always parses: for a value JSON keeps exactly (most generated
 * cases), its JSON; otherwise the closest JSON: undefined properties left out (as a JSON
 * body leaves them out), undefined in arrays and non-finite numbers as null, -0 as 0, a
 * bigint as a string `"12n"`, a Map as an object, a Set as an array. Never fast-check's own
 * notation (`__proto__:null`, `undefined`), which is not JSON.
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, jsonReplacer) ?? 'null';
  } catch {
    // A cycle, or a getter that throws: say what it is, still as JSON.
    return JSON.stringify(`(not representable as JSON: ${Object.prototype.toString.call(value)})`);
  }
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), v]));
  if (value instanceof Set) return [...value];
  return value;
}
