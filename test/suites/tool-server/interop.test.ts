import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { shellQuote } from '../../../src/harness/run-suite.js';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { NODE, runAgainst, serverScript, sseTarget, stdioTarget } from './helpers.js';

// The suite against third-party servers (the official SDK, its reference servers, two bridges
// and a framework), with the default --call-tools (no tool that is not annotated read-only
// is called), and the comparison of what it measures with docs/tool-server-compatibility.md.

const bin = (path: string) =>
  `${NODE} ${shellQuote(fileURLToPath(new URL(`../../../node_modules/${path}`, import.meta.url)))}`;
const EVERYTHING = bin('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = bin('@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY = bin('@modelcontextprotocol/server-memory/dist/index.js');
const SUPERGATEWAY = bin('supergateway/dist/index.js');
const MCP_PROXY = bin('mcp-proxy/dist/bin/mcp-proxy.mjs');

/** Filesystem and memory servers work in a temporary folder (nothing is written there: no check calls a writing tool). */
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-interop-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const memory = () => `MEMORY_FILE_PATH=${shellQuote(join(dir, 'memory.jsonl'))} ${MEMORY}`;

const TARGETS: Record<string, () => Promise<ToolServerTarget>> = {
  'SDK stdio': async () => stdioTarget(`${serverScript('sdk')} --transport stdio`),
  'SDK sse': () => sseTarget((port) => `${serverScript('sdk')} --transport sse --port ${port}`),
  'everything stdio': async () => stdioTarget(`${EVERYTHING} stdio`),
  'everything sse': () => sseTarget((port) => `PORT=${port} ${EVERYTHING} sse`),
  'filesystem stdio': async () => stdioTarget(`${FILESYSTEM} ${shellQuote(dir)}`),
  'memory stdio': async () => stdioTarget(memory()),
  'supergateway sse': () =>
    sseTarget((port) => `${SUPERGATEWAY} --stdio ${shellQuote(memory())} --port ${port}`),
  'mcp-proxy sse': () =>
    sseTarget((port) => `${MCP_PROXY} --port ${port} --server sse -- sh -c ${shellQuote(memory())}`),
  'fastmcp sse': () => sseTarget((port) => `${serverScript('fastmcp')} --port ${port}`),
};

/** The compatibility table: check id -> column -> cell. */
async function compatibilityTable(): Promise<{
  columns: string[];
  rows: Map<string, Record<string, string>>;
}> {
  const { readFile } = await import('node:fs/promises');
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

/** What the table says a target's run must show: id -> status (n/a is a transport skip). */
function tableColumn(rows: Map<string, Record<string, string>>, column: string): Record<string, string> {
  return Object.fromEntries(
    [...rows].map(([id, cells]) => [id, cells[column] === 'n/a' ? 'skip' : (cells[column] ?? '')]),
  );
}

describe('interop with third-party tool servers (docs/tool-server-compatibility.md)', () => {
  for (const name of Object.keys(TARGETS)) {
    test(`${name}: every failure and warning is the one the compatibility table lists`, async () => {
      const result: SuiteResult = await runAgainst(await TARGETS[name]!());
      const { columns, rows } = await compatibilityTable();
      expect(columns).toContain(name);
      const status = Object.fromEntries(result.checks.map((c) => [c.id, c.status]));
      const column = tableColumn(rows, name);
      // Every row of the table holds for this target...
      expect(Object.fromEntries(Object.keys(column).map((id) => [id, status[id]]))).toEqual(column);
      // ...and the table lists every check that failed or warned.
      const unlisted = result.checks.filter(
        (c) => (c.status === 'fail' || c.status === 'warn') && !rows.has(c.id),
      );
      expect(unlisted.map((c) => `${c.id}: ${c.status}: ${c.message}`)).toEqual([]);
      if (name.startsWith('filesystem')) expect(await readdir(dir)).toEqual([]);
    }, 180_000);
  }
});
