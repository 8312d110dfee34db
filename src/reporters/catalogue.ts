import type { Basis } from '../harness/check.js';
import type { Level } from '../harness/results.js';
import { withoutTerminalControls } from './text.js';
import { wrapWords } from './wrap.js';

/** One row of the check catalogue (`wirecheck list`, docs/checks.md). */
export interface CatalogueRow {
  readonly id: string;
  readonly suite: string;
  readonly clause: string;
  readonly level: Level;
  readonly tier: 'quick' | 'full';
  readonly description: string;
  /** Where the rule comes from (docs/levels.md), when the check says. */
  readonly basis?: Basis;
  /** The rule in the catalogue's own words, when the check states it. */
  readonly rule?: string;
  /** The protocol revisions the check holds in (`--protocol`), when not every one. */
  readonly revisions?: readonly string[];
}

/** What the catalogue reads of a suite (a registry entry has it). */
export interface CatalogueSource {
  readonly suite: {
    readonly name: string;
    readonly checks: readonly {
      readonly id: string;
      readonly clause: string;
      readonly level: Level;
      readonly tier?: 'quick' | 'full';
      readonly description: string;
      readonly basis?: Basis;
      readonly rule?: string;
      readonly revisions?: readonly string[];
    }[];
  };
}

export function catalogueOf(entries: readonly CatalogueSource[]): CatalogueRow[] {
  return entries.flatMap(({ suite }) =>
    suite.checks.map((c) => ({
      id: c.id,
      suite: suite.name,
      clause: c.clause,
      level: c.level,
      tier: c.tier ?? 'quick',
      description: c.description,
      ...(c.basis === undefined ? {} : { basis: c.basis }),
      ...(c.rule === undefined ? {} : { rule: c.rule }),
      ...(c.revisions === undefined ? {} : { revisions: c.revisions }),
    })),
  );
}

/** Width of the catalogue when the output is not a terminal (a pipe, a file): a readable page. */
export const PLAIN_WIDTH = 100;
const INDENT = '    ';

/** `text` wrapped to `width`, each line indented, the first after `label`. */
function paragraph(label: string, text: string, width: number): string[] {
  const pad = INDENT + ' '.repeat(label.length);
  return wrapWords(withoutTerminalControls(text), width - pad.length).map(
    (line, i) => `${i === 0 ? INDENT + label : pad}${line}`,
  );
}

/**
 * The catalogue as text no wider than `width`: per suite a heading, then per check a line
 * with its id, level, tier and clause, and below it, wrapped, its description and (when the
 * check states them) its rule and basis.
 */
export function formatCatalogue(rows: readonly CatalogueRow[], width: number): string {
  const out: string[] = [];
  let suite: string | undefined;
  for (const r of rows) {
    if (r.suite !== suite) {
      suite = r.suite;
      const count = rows.filter((x) => x.suite === suite).length;
      if (out.length > 0) out.push('');
      out.push(`${suite} (${count} ${count === 1 ? 'check' : 'checks'})`);
    }
    const head = withoutTerminalControls(`  ${r.id}  ${r.level}  ${r.tier}  ${r.clause}`);
    if (head.length <= width) out.push(head);
    else {
      // Too wide: the id alone (cut if it must be), the rest below it.
      out.push(...wrapWords(r.id, width - 2).map((l) => `  ${l}`));
      out.push(...paragraph('', `${r.level}  ${r.tier}  ${r.clause}`, width));
    }
    out.push(...paragraph('', r.description, width));
    if (r.revisions !== undefined) out.push(...paragraph('revisions: ', r.revisions.join(', '), width));
    if (r.rule !== undefined || r.basis !== undefined) {
      out.push(
        ...paragraph(
          `rule${r.basis === undefined ? '' : ` (${r.basis})`}: `,
          r.rule ?? '(not stated)',
          width,
        ),
      );
    }
  }
  return `${out.join('\n')}\n`;
}
