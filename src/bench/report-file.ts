import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BenchReport, type BenchRow } from './rows.js';

/** reports/bench.json exists but is not a list of rows: refusing to overwrite other parts' rows. */
export class BenchReportError extends Error {
  override name = 'BenchReportError';
}

/** The rows already in the report, [] when there is no file. */
export async function readReport(path: string): Promise<BenchRow[]> {
  if (!existsSync(path)) return [];
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new BenchReportError(
      `${path}: expected a JSON list of bench rows, got invalid JSON (${(e as Error).message})`,
    );
  }
  const parsed = BenchReport.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'invalid';
    throw new BenchReportError(
      `${path}: expected a JSON list of {name, value, unit, baseline, ratio, goal}, got ${where}`,
    );
  }
  return parsed.data;
}

/** Write the rows (through a temporary file, so a crash never leaves half a report). */
export async function writeReport(path: string, rows: readonly BenchRow[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(rows, null, 2)}\n`);
  await rename(tmp, path);
}
