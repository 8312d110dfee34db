import type { Command } from 'commander';
import type { Level } from '../harness/results.js';
import { SUITES, type SuiteEntry } from '../suites/registry.js';
import type { CliContext } from './context.js';
import { unknownSuiteError } from './report-error.js';

/** One row of the check catalogue (`wirecheck list`). */
export interface CatalogueRow {
  readonly id: string;
  readonly suite: string;
  readonly clause: string;
  readonly level: Level;
  readonly tier: 'quick' | 'full';
  readonly description: string;
}

export function catalogueOf(entries: readonly SuiteEntry[]): CatalogueRow[] {
  return entries.flatMap(({ suite }) =>
    suite.checks.map(
      (c: { id: string; clause: string; level: Level; tier?: 'quick' | 'full'; description: string }) => ({
        id: c.id,
        suite: suite.name,
        clause: c.clause,
        level: c.level,
        tier: c.tier ?? 'quick',
        description: c.description,
      }),
    ),
  );
}

/** Aligned columns; the description is last so long ones do not push the others. */
export function formatCatalogueTable(rows: readonly CatalogueRow[]): string {
  const header = {
    id: 'ID',
    suite: 'SUITE',
    clause: 'CLAUSE',
    level: 'LEVEL',
    tier: 'TIER',
    description: 'DESCRIPTION',
  };
  const columns = ['id', 'suite', 'clause', 'level', 'tier'] as const;
  const all = [header, ...rows];
  const widths = columns.map((col) => Math.max(...all.map((r) => r[col].length)));
  const lines = all.map((r) =>
    [...columns.map((col, i) => r[col].padEnd(widths[i] ?? 0)), r.description.replace(/\s+/g, ' ')].join(
      '  ',
    ),
  );
  return `${lines.join('\n')}\n`;
}

/** `wirecheck list [suite] [--json]`. */
export function addListCommand(program: Command, ctx: CliContext, finish: (exitCode: number) => void): void {
  program
    .command('list')
    .description('list the checks: id, suite, spec clause, level, tier, description')
    .argument('[suite]', 'only this suite')
    .option('--json', 'print a JSON array instead of a table')
    .action((suiteName: string | undefined, opts: { json?: boolean }) => {
      const entries = suiteName === undefined ? SUITES : SUITES.filter((e) => e.suite.name === suiteName);
      if (suiteName !== undefined && entries.length === 0) {
        throw unknownSuiteError(suiteName);
      }
      const rows = catalogueOf(entries);
      ctx.stdout.write(
        opts.json === true ? `${JSON.stringify(rows, null, 2)}\n` : formatCatalogueTable(rows),
      );
      finish(0);
    });
}
