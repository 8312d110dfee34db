/**
 * MCP 2024-11-05 objects in one canonical form, so that a default written out and a
 * default left out compare equal (see `src/protocol/compare.ts`). Each rule cites the
 * schema text it comes from. Values that are not objects of the expected shape are
 * returned unchanged: the comparison then reports them as they are.
 */

/** `CallToolResult.isError`: "If not set, this is assumed to be false." */
export function normalizeCallToolResult(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return value.isError === undefined ? { ...value, isError: false } : value;
}

/** `tools/call` params: `arguments` absent counts as empty (seed: "may be absent and then count as empty"). */
export function normalizeCallToolParams(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return value.arguments === undefined ? { ...value, arguments: {} } : value;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
