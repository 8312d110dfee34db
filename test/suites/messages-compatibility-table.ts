import { readFile } from 'node:fs/promises';
import type { SuiteResult } from '../../src/harness/results.js';

/** A table of docs/messages-compatibility.md between its markers: check id -> column -> cell. */
export async function compatibilityTable(
  name: 'messages-client' | 'messages-service',
): Promise<{ columns: string[]; rows: Map<string, Record<string, string>> }> {
  const doc = await readFile(new URL('../../docs/messages-compatibility.md', import.meta.url), 'utf8');
  const block = doc.split(`<!-- ${name}-table:start -->`)[1]?.split(`<!-- ${name}-table:end -->`)[0] ?? '';
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

/** The measured status per check id, and the table's column for the same ids. */
export function measuredAndTable(
  result: SuiteResult,
  rows: Map<string, Record<string, string>>,
  column: string,
): { measured: Record<string, string>; table: Record<string, string> } {
  const measured = Object.fromEntries(result.checks.map((c) => [c.id, c.status]));
  const table = Object.fromEntries([...rows].map(([id, cells]) => [id, cells[column] ?? '(no cell)']));
  return { measured, table };
}
