import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WirecheckError } from '../harness/errors.js';
import type { SuiteResult } from '../harness/results.js';
import { formatHtml } from './html.js';
import { formatResultsJson, formatSummaryJson } from './json.js';
import { formatJunit } from './junit.js';

export interface ReportOptions {
  /** Warnings count as failures in junit.xml and report.html. */
  readonly strict: boolean;
}

/** The files beside the suites' folders: no folder takes one's name. */
const TOP_LEVEL_FILES = ['summary.json', 'junit.xml', 'report.html'];

/**
 * A suite run's folder (the suite, `-variant` added for one of several runs of it:
 * `tool-server-stdio`, the same in every shard of a plan, so merge-reports finds the runs
 * again) as one safe path segment (registered names already are; this guards the rest, a
 * merged results.json's included).
 */
export function runFolder(run: Pick<SuiteResult, 'suite' | 'variant'>): string {
  const wanted = run.variant === undefined ? run.suite : `${run.suite}-${run.variant}`;
  // No separators, and no leading dot: neither `..` nor a hidden directory.
  return wanted.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_') || 'suite';
}

/**
 * runFolder told apart from the names taken in any letter case: a case-insensitive file
 * system holds `Agent` and `agent` as one folder.
 */
function directoryName(run: SuiteResult, taken: Set<string>): string {
  const base = runFolder(run);
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}`;
  taken.add(name.toLowerCase());
  return name;
}

/** The files of a report as path (relative to the report directory) -> content. */
export function reportFiles(results: readonly SuiteResult[], options: ReportOptions): Map<string, string> {
  const files = new Map<string, string>();
  const only = results.length === 1 ? results[0] : undefined;
  if (only !== undefined) {
    files.set('results.json', formatResultsJson(only));
  } else {
    const taken = new Set<string>(TOP_LEVEL_FILES);
    for (const r of results) files.set(join(directoryName(r, taken), 'results.json'), formatResultsJson(r));
    files.set('summary.json', formatSummaryJson(results));
  }
  files.set('junit.xml', formatJunit(results, options));
  files.set('report.html', formatHtml(results, options));
  return files;
}

/**
 * Write the reports of a run into `dir` (created if needed): for one suite results.json,
 * junit.xml and report.html; for several, <suite>[-<variant>]/results.json each plus combined
 * junit.xml, report.html and summary.json. Returns the paths written.
 */
export async function writeReports(
  dir: string,
  results: readonly SuiteResult[],
  options: ReportOptions,
): Promise<string[]> {
  const written: string[] = [];
  for (const [relative, content] of reportFiles(results, options)) {
    const path = join(dir, relative);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content, 'utf8');
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new WirecheckError('WC_REPORT_WRITE', `cannot write report ${path}: ${reason}`, { cause: e });
    }
    written.push(path);
  }
  return written;
}
