import { readFile } from 'node:fs/promises';
import type { CheckResult, SuiteResult } from '../../src/harness/results.js';

/**
 * A compatibility table of docs/: where it is, and what its rows promise. The messages tables
 * give every check a row; the agent, runner and tool tables list only the checks that do not pass (and
 * `n/a` for a check the target's transport skips).
 */
export interface CompatibilityTableSpec {
  readonly doc: string;
  /** The table sits between `<!-- {marker}:start -->` and `<!-- {marker}:end -->`. */
  readonly marker: string;
  readonly listsEveryCheck: boolean;
  /** Header cells after `check` and `level` that describe the rows, not a target (tool-client: `revision`). */
  readonly rowColumns?: readonly string[];
  /** A check without a row that may still be skipped (every other one must pass). */
  readonly unlistedSkip?: (check: CheckResult) => boolean;
}

export const COMPATIBILITY_TABLES = {
  'messages-client': {
    doc: 'messages-compatibility.md',
    marker: 'messages-client-table',
    listsEveryCheck: true,
  },
  'messages-service': {
    doc: 'messages-compatibility.md',
    marker: 'messages-service-table',
    listsEveryCheck: true,
  },
  'tool-client': {
    doc: 'tool-client-compatibility.md',
    marker: 'compatibility-table',
    listsEveryCheck: false,
    rowColumns: ['revision'],
    // A check of another MCP revision than its transport's is skipped as not applicable.
    unlistedSkip: (check) => check.skipKind === 'not-applicable',
  },
  agent: {
    doc: 'agent-compatibility.md',
    marker: 'compatibility-table',
    listsEveryCheck: false,
  },
  runner: {
    doc: 'runner-compatibility.md',
    marker: 'compatibility-table',
    listsEveryCheck: false,
  },
  'tool-server': {
    doc: 'tool-server-compatibility.md',
    marker: 'compatibility-table',
    listsEveryCheck: false,
    // Checks of a transport the target does not speak.
    unlistedSkip: () => true,
  },
  // The tool-server suite over Streamable HTTP: a second table of the same page. A check it does
  // not list passes, or skips as not applicable (another transport, another revision); a check
  // that was given nothing to judge has a row, so a pass that turns into one is seen.
  'tool-server-http': {
    doc: 'tool-server-compatibility.md',
    marker: 'streamable-table',
    listsEveryCheck: false,
    unlistedSkip: (check) => check.skipKind === 'not-applicable',
  },
} as const satisfies Record<string, CompatibilityTableSpec>;

export type TabledSuite = keyof typeof COMPATIBILITY_TABLES;

/** A table read from docs/: check id -> column -> cell. */
export interface CompatibilityTable {
  /** The targets' columns, one per implementation measured. */
  readonly columns: readonly string[];
  readonly rows: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

export async function readCompatibilityTable(suite: TabledSuite): Promise<CompatibilityTable> {
  const spec: CompatibilityTableSpec = COMPATIBILITY_TABLES[suite];
  const doc = await readFile(new URL(`../../docs/${spec.doc}`, import.meta.url), 'utf8');
  const block = doc.split(`<!-- ${spec.marker}:start -->`)[1]?.split(`<!-- ${spec.marker}:end -->`)[0] ?? '';
  const lines = block
    .trim()
    .split('\n')
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const header = (lines[0] ?? []).slice(2);
  const rows = new Map<string, Record<string, string>>();
  for (const cells of lines.slice(2)) {
    rows.set(
      (cells[0] ?? '').replace(/`/g, ''),
      Object.fromEntries(header.map((c, i) => [c, cells[i + 2] ?? ''])),
    );
  }
  return { columns: header.filter((c) => !(spec.rowColumns ?? []).includes(c)), rows };
}

/** The status a cell promises: `n/a` is a check the target's transport skips. */
function statusOfCell(cell: string): string {
  return cell === 'n/a' ? 'skip' : cell;
}

/**
 * Where a run departs from its column of the table, one line per check: `id: table says X,
 * measured Y: message`. Empty when the table tells the truth about this run.
 */
export function tableDifferences(
  suite: TabledSuite,
  table: CompatibilityTable,
  column: string,
  result: Pick<SuiteResult, 'checks'>,
): string[] {
  const spec: CompatibilityTableSpec = COMPATIBILITY_TABLES[suite];
  if (!table.columns.includes(column)) return [`docs/${spec.doc} has no column "${column}"`];
  const measured = new Map(result.checks.map((c) => [c.id, c]));
  const differences: string[] = [];
  const differ = (id: string, want: string, check: CheckResult | undefined) =>
    differences.push(
      `${id}: table says ${want}, measured ${check === undefined ? '(no such check)' : `${check.status}: ${check.message.slice(0, 300)}`}`,
    );
  for (const [id, cells] of table.rows) {
    const want = statusOfCell(cells[column] ?? '(no cell)');
    const check = measured.get(id);
    if (check?.status !== want) differ(id, want, check);
  }
  for (const check of result.checks) {
    if (table.rows.has(check.id)) continue;
    if (spec.listsEveryCheck) differ(check.id, '(no row)', check);
    else if (check.status === 'skip' ? !(spec.unlistedSkip?.(check) ?? false) : check.status !== 'pass')
      differ(check.id, 'pass (no row)', check);
  }
  return differences;
}
