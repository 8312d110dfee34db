import { type BenchRow, goalMet, hasGoal } from './rows.js';

function number(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US');
  return String(Number(x.toPrecision(3)));
}

function met(row: BenchRow): string {
  if (!hasGoal(row)) return '-';
  return goalMet(row) ? 'yes' : 'NO';
}

function cellsOf(r: BenchRow): string[] {
  return [
    r.name,
    number(r.value),
    r.unit,
    number(r.baseline),
    r.ratio.toFixed(2),
    hasGoal(r) ? String(r.goal) : '-',
    met(r),
  ];
}

const HEADER = ['name', 'value', 'unit', 'baseline', 'ratio', 'goal', 'met?'];

/**
 * The rows as an aligned text table, a header line first; rows with a note get a mark
 * and the notes follow the table.
 */
export function formatTable(rows: readonly BenchRow[]): string[] {
  // Rows of one comparison share their note: each distinct note is listed once.
  const numbers = new Map<string, number>();
  const cells = rows.map((r) => {
    const c = cellsOf(r);
    if (r.note !== undefined) {
      if (!numbers.has(r.note)) numbers.set(r.note, numbers.size + 1);
      c[0] = `${c[0]} [${numbers.get(r.note)}]`;
    }
    return c;
  });
  const notes = [...numbers].map(([note, n]) => `[${n}] ${note}`);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  // Names and units read left-aligned, numbers right-aligned.
  const left = new Set([0, 2, 6]);
  const line = (cols: string[]) =>
    cols
      .map((c, i) => (left.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const table = [line(HEADER), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  return notes.length === 0 ? table : [...table, '', ...notes];
}

const escapeCell = (s: string) => s.replaceAll('|', '\\|');

/** The rows as a Markdown table (what docs/performance.md holds), notes in the last column. */
export function formatMarkdown(rows: readonly BenchRow[]): string[] {
  const header = [...HEADER, 'note'];
  const align = ['---', '---:', '---', '---:', '---:', '---:', '---', '---'];
  const line = (cols: string[]) => `| ${cols.map(escapeCell).join(' | ')} |`;
  return [
    line(header),
    `|${align.map((a) => ` ${a} `).join('|')}|`,
    ...rows.map((r) => line([...cellsOf(r), r.note ?? ''])),
  ];
}
