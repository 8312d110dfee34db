import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import { defaultRevisionFor } from '../../../src/protocol/mcp/index.js';
import { TOOL_TRANSPORTS } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, nodeCommand, runAgainst, suite } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// Third-party MCP client libraries through adapters (clients/*.mjs), over stdio, SSE and
// Streamable HTTP, compared with docs/tool-client-compatibility.md: every failure, warning
// and skip must be the table's.
const CLIENTS: Record<string, string> = {
  'official SDK': './clients/mcp-sdk-client.mjs',
  '@ai-sdk/mcp': './clients/ai-sdk-client.mjs',
};

/** The revision a check of this run is judged in: its transport's default. */
function runRevisionOf(id: string) {
  return defaultRevisionFor(id.startsWith('tool-client.http.') ? 'http' : 'stdio');
}

async function table(): Promise<{ columns: string[]; rows: Map<string, Record<string, string>> }> {
  const doc = await readFile(new URL('../../../docs/tool-client-compatibility.md', import.meta.url), 'utf8');
  const block =
    doc.split('<!-- compatibility-table:start -->')[1]?.split('<!-- compatibility-table:end -->')[0] ?? '';
  const lines = block
    .trim()
    .split('\n')
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const columns = (lines[0] ?? []).slice(2);
  const rows = new Map<string, Record<string, string>>();
  for (const cells of lines.slice(2)) {
    rows.set(
      (cells[0] ?? '').replace(/`/g, ''),
      Object.fromEntries(columns.map((c, i) => [c, cells[i + 2] ?? ''])),
    );
  }
  return { columns, rows };
}

describe('interop with MCP client libraries (docs/tool-client-compatibility.md)', () => {
  for (const [name, file] of Object.entries(CLIENTS)) {
    test(`${name}: every failure and warning is the one the compatibility table lists`, async () => {
      const result = await runAgainst(nodeCommand(file), {}, TOOL_TRANSPORTS);
      const { columns, rows } = await table();
      expect(columns).toContain(name);
      const status = Object.fromEntries(result.checks.map((c) => [c.id, c.status]));
      const want = Object.fromEntries([...rows].map(([id, cells]) => [id, cells[name]]));
      expect(Object.fromEntries(Object.keys(want).map((id) => [id, status[id]]))).toEqual(want);
      const unlisted = result.checks.filter(
        (c) => (c.status === 'fail' || c.status === 'warn') && !rows.has(c.id),
      );
      expect(unlisted.map((c) => `${c.id}: ${c.status}: ${c.message}`)).toEqual([]);
      // A skip is listed in the table too, or is a check of another MCP revision than its
      // transport's (the run names none: stdio and SSE speak 2024-11-05, Streamable HTTP
      // 2025-03-26), skipped as not applicable: none may come unannounced.
      const otherRevision = new Set(
        suite.checks
          .filter((c) => c.revisions !== undefined && !c.revisions.includes(runRevisionOf(c.id)))
          .map((c) => c.id),
      );
      const unlistedSkips = result.checks.filter(
        (c) => c.status === 'skip' && !rows.has(c.id) && !otherRevision.has(c.id),
      );
      expect(unlistedSkips.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      expect(result.checks.filter((c) => otherRevision.has(c.id)).map((c) => [c.id, c.skipKind])).toEqual(
        [...otherRevision].map((id) => [id, 'not-applicable']),
      );
    }, 400_000);
  }
});
