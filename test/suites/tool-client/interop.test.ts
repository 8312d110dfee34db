import { beforeAll, describe, expect, test } from 'vitest';
import { defaultRevisionFor } from '../../../src/protocol/mcp/index.js';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import { TOOL_CLIENTS } from '../../compatibility/targets.js';
import { ensureBuilt, runAgainst, suite } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// Third-party MCP client libraries through adapters (clients/*.mjs), over stdio, SSE and
// Streamable HTTP, compared with docs/tool-client-compatibility.md: every failure, warning
// and skip must be the table's.

/** The revision a check of this run is judged in: its transport's default. */
function runRevisionOf(id: string) {
  return defaultRevisionFor(id.startsWith('tool-client.http.') ? 'http' : 'stdio');
}

describe('interop with MCP client libraries (docs/tool-client-compatibility.md)', () => {
  for (const name of Object.keys(TOOL_CLIENTS)) {
    test(`${name}: every failure and warning is the one the compatibility table lists`, async () => {
      const { target } = await TOOL_CLIENTS[name]!();
      const result = await runAgainst(target.client, {}, target.transports);
      const table = await readCompatibilityTable('tool-client');
      expect(tableDifferences('tool-client', table, name, result)).toEqual([]);
      // A skip is listed in the table too, or is a check of another MCP revision than its
      // transport's (the run names none: stdio and SSE speak 2024-11-05, Streamable HTTP
      // 2025-03-26), skipped as not applicable: none may come unannounced.
      const otherRevision = new Set(
        suite.checks
          .filter((c) => c.revisions !== undefined && !c.revisions.includes(runRevisionOf(c.id)))
          .map((c) => c.id),
      );
      const unlistedSkips = result.checks.filter(
        (c) => c.status === 'skip' && !table.rows.has(c.id) && !otherRevision.has(c.id),
      );
      expect(unlistedSkips.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      expect(result.checks.filter((c) => otherRevision.has(c.id)).map((c) => [c.id, c.skipKind])).toEqual(
        [...otherRevision].map((id) => [id, 'not-applicable']),
      );
    }, 400_000);
  }
});
