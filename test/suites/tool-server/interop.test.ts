import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { shellQuote } from '../../../src/harness/run-suite.js';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { NODE, runAgainst, serverScript, sseTarget, stdioTarget } from './helpers.js';

// The suite against servers built on the official MCP SDK, and the comparison of what it
// measures with docs/tool-server-compatibility.md.

const EVERYTHING = `${NODE} ${shellQuote(
  fileURLToPath(
    new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
  ),
)}`;

const TARGETS: Record<string, () => Promise<ToolServerTarget>> = {
  'SDK stdio': async () => stdioTarget(`${serverScript('sdk')} --transport stdio`),
  'SDK sse': () => sseTarget((port) => `${serverScript('sdk')} --transport sse --port ${port}`),
  'everything stdio': async () => stdioTarget(`${EVERYTHING} stdio`),
  'everything sse': () => sseTarget((port) => `PORT=${port} ${EVERYTHING} sse`),
};

/** The checks each target warns on (none fails a must check): the measured divergences. */
const EXPECTED_WARNINGS: Record<string, string[]> = {
  'SDK stdio': ['tools.unknown-tool-error', 'malformed.parse-error', 'malformed.invalid-request'],
  'SDK sse': [
    'tools.unknown-tool-error',
    'sse.no-buffering-header',
    'sse.session-header',
    'sse.no-session-400',
  ],
  'everything stdio': [
    'tools.property-schema',
    'tools.unknown-tool-error',
    'malformed.parse-error',
    'malformed.invalid-request',
  ],
  'everything sse': [
    'tools.property-schema',
    'tools.unknown-tool-error',
    'sse.no-buffering-header',
    'sse.session-header',
    'sse.no-session-400',
  ],
};

/** The compatibility table: check id -> column -> cell. */
async function compatibilityTable(): Promise<{
  columns: string[];
  rows: Map<string, Record<string, string>>;
}> {
  const doc = await readFile(new URL('../../../docs/tool-server-compatibility.md', import.meta.url), 'utf8');
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
  const header = lines[0] ?? [];
  const columns = header.slice(2);
  const rows = new Map<string, Record<string, string>>();
  for (const cells of lines.slice(2)) {
    const id = (cells[0] ?? '').replace(/`/g, '');
    rows.set(id, Object.fromEntries(columns.map((c, i) => [c, cells[i + 2] ?? ''])));
  }
  return { columns, rows };
}

/** What the table says a target's run must show: id -> status (n/a is a skip). */
function tableColumn(rows: Map<string, Record<string, string>>, column: string): Record<string, string> {
  return Object.fromEntries(
    [...rows].map(([id, cells]) => [id, cells[column] === 'n/a' ? 'skip' : (cells[column] ?? '')]),
  );
}

const measured = new Map<string, SuiteResult>();

async function measure(name: string): Promise<SuiteResult> {
  let result = measured.get(name);
  if (result === undefined) {
    result = await runAgainst(await TARGETS[name]!());
    measured.set(name, result);
  }
  return result;
}

describe('interop with servers built on the official MCP SDK', () => {
  for (const name of Object.keys(TARGETS)) {
    test(`${name}: fails no must check and warns exactly where the compatibility table says`, async () => {
      const result = await measure(name);
      const warned = result.checks.filter((c) => c.status === 'warn').map((c) => c.id);
      const failed = result.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.message}`);
      expect(failed).toEqual([]);
      expect(warned.sort()).toEqual(EXPECTED_WARNINGS[name]!.map((id) => `tool-server.${id}`).sort());

      const { columns, rows } = await compatibilityTable();
      expect(columns).toContain(name);
      const status = Object.fromEntries(result.checks.map((c) => [c.id, c.status]));
      // Every row of the table holds for this target...
      const column = tableColumn(rows, name);
      expect(Object.fromEntries(Object.keys(column).map((id) => [id, status[id]]))).toEqual(column);
      // ...and the table lists every check that did not pass (transport skips aside).
      const unlisted = result.checks.filter(
        (c) => c.status !== 'pass' && !rows.has(c.id) && !/applies to the|transport matter/.test(c.message),
      );
      expect(unlisted.map((c) => `${c.id}: ${c.status}`)).toEqual([]);
    }, 180_000);
  }
});
