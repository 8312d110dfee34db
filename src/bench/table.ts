import { type BenchRow, goalMet } from './rows.js';

function number(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US');
  return String(Number(x.toPrecision(3)));
}

/** The rows as an aligned text table, a header line first. */
export function formatTable(rows: readonly BenchRow[]): string[] {
  const header = ['name', 'value', 'unit', 'baseline', 'ratio', 'goal', 'met?'];
  const cells = rows.map((r) => [
    r.name,
    number(r.value),
    r.unit,
    number(r.baseline),
    r.ratio.toFixed(2),
    String(r.goal),
    goalMet(r) ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  // Names and units read left-aligned, numbers right-aligned.
  const left = new Set([0, 2, 6]);
  const line = (cols: string[]) =>
    cols
      .map((c, i) => (left.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}
