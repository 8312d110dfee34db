import type { Dirent, Stats } from 'node:fs';
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  realpath,
  rename,
  rmdir,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { WirecheckError } from '../harness/errors.js';
import type { SuiteResult } from '../harness/results.js';
import { formatHtml } from './html.js';
import { formatResultsJson, formatSummaryJson } from './json.js';
import { formatJunit } from './junit.js';
import { kindOf } from './report-dir.js';
import { holdsReportDir, lockReportDir, unlockReportDir } from './report-lock.js';

export interface ReportOptions {
  /** Warnings count as failures in junit.xml and report.html. */
  readonly strict: boolean;
  /**
   * Files in the report directory this run read and did not write (the counterexample a
   * `--replay` run replays): never removed as an earlier run's, though no result names them.
   */
  readonly keep?: readonly string[];
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

/** Names of files wirecheck writes in a report directory or a suite's folder of it. */
const REPORT_NAMES = new Set(['results.json', 'summary.json', 'junit.xml', 'report.html']);

/** A report's temporary file, `<name>.tmp-<pid>`: left by a run killed while writing. */
const TEMP_FILE = /^(?:results\.json|summary\.json|junit\.xml|report\.html)\.tmp-\d+$/;

/** A counterexample file as counterexampleFile names it. */
const COUNTEREXAMPLE_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$/;

/** Where counterexamples go (COUNTEREXAMPLES_DIR of harness/counterexamples.ts, which imports the harness). */
const COUNTEREXAMPLES_DIR = 'counterexamples';

/** Only so much of a file is read to tell whether wirecheck wrote it. */
const MAX_SIGNATURE_BYTES = 256 * 1024 * 1024;

function codeOf(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e ? String((e as NodeJS.ErrnoException).code) : undefined;
}

function writeError(path: string, what: string, e: unknown): WirecheckError {
  const reason = e instanceof Error ? e.message : String(e);
  return new WirecheckError('WC_REPORT_WRITE', `cannot ${what} ${path}: ${reason}`, { cause: e });
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    const code = codeOf(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw writeError(path, 'inspect', e);
  }
}

/**
 * A report path must be a regular file or nothing: a FIFO there blocked the write for ever,
 * and a symbolic link, socket or device is someone else's, which wirecheck does not replace
 * (a rename would replace a link itself, but the link was put there for a reason wirecheck
 * cannot know). A suite's folder must be a directory of its own (no link out of DIR).
 */
async function refuseNonRegular(dir: string, relative: string): Promise<void> {
  const parts = relative.split(sep);
  let at = dir;
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    const info = await lstatOrUndefined(at);
    if (info === undefined) return;
    const last = i === parts.length - 1;
    if (last ? info.isFile() : info.isDirectory()) continue;
    // A results.json where this run wants a suite's folder named so, or the reverse, is an
    // earlier run's (else the mkdir or the rename fails and says so): removed as stale first.
    if (!last && info.isFile()) continue;
    if (last && part === 'results.json' && info.isDirectory()) continue;
    throw new WirecheckError(
      'WC_REPORT_WRITE',
      `cannot write report ${join(dir, relative)}: ${at} is ${kindOf(info)}, not ${last ? 'a regular file' : 'a directory'}; wirecheck neither opens nor replaces it: remove it or give another --report-dir`,
    );
  }
}

/** The JSON of a regular file, or undefined (not regular, too large, unreadable, not JSON). */
async function jsonOf(path: string): Promise<unknown> {
  const info = await lstatOrUndefined(path);
  if (info === undefined || !info.isFile() || info.size > MAX_SIGNATURE_BYTES) return undefined;
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A results.json wirecheck wrote: a suite result's shape (of any version). */
function isResultsJson(value: unknown): value is { suite: string; variant?: unknown } {
  return isObject(value) && typeof value.suite === 'string' && Array.isArray(value.checks);
}

function isSummaryJson(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.suites) && isObject(value.summary);
}

/** What an earlier run left that this one does not write. */
interface Stale {
  readonly files: string[];
  /** Removed only when empty, deepest first. */
  readonly dirs: string[];
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return [];
    throw writeError(dir, 'list the report directory', e);
  }
}

async function staleCounterexamples(folder: string, keep: ReadonlySet<string>, stale: Stale): Promise<void> {
  for (const entry of await entriesOf(folder)) {
    const path = join(folder, entry.name);
    if (!entry.isFile() || !COUNTEREXAMPLE_FILE.test(entry.name) || keep.has(path)) continue;
    // Only a counterexample wirecheck wrote: a file of the user's own of that name stays.
    const value = await jsonOf(path);
    if (isObject(value) && value.kind === 'counterexample') stale.files.push(path);
  }
  stale.dirs.push(folder);
}

/**
 * The files of earlier runs in `folder` (the report directory, `top`, or a suite's folder of
 * it) that this run does not write: only wirecheck's names, and results.json and
 * summary.json only when their content is wirecheck's.
 */
async function staleIn(folder: string, top: boolean, keep: ReadonlySet<string>, stale: Stale): Promise<void> {
  for (const entry of await entriesOf(folder)) {
    const path = join(folder, entry.name);
    if (entry.isFile()) {
      if (keep.has(path)) continue;
      // This pid's own temporary name is writeTemp's to clear: removed here, it would be this run's.
      if (TEMP_FILE.test(entry.name)) {
        if (!entry.name.endsWith(`.tmp-${process.pid}`)) stale.files.push(path);
      } else if (entry.name === 'results.json' && isResultsJson(await jsonOf(path))) stale.files.push(path);
      else if (top && entry.name === 'summary.json' && isSummaryJson(await jsonOf(path)))
        stale.files.push(path);
      else if (REPORT_NAMES.has(entry.name) && entry.name !== 'results.json' && entry.name !== 'summary.json')
        stale.files.push(path);
    } else if (entry.isDirectory()) {
      if (entry.name === COUNTEREXAMPLES_DIR) await staleCounterexamples(path, keep, stale);
      else if (top && (await isSuiteFolder(path, entry.name))) {
        await staleIn(path, false, keep, stale);
        stale.dirs.push(path);
      }
    }
  }
}

/** A suite's folder of an earlier run: its results.json is wirecheck's, of a suite of that folder name. */
async function isSuiteFolder(path: string, name: string): Promise<boolean> {
  const result = await jsonOf(join(path, 'results.json'));
  if (!isResultsJson(result)) return false;
  const variant = typeof result.variant === 'string' ? result.variant : undefined;
  const base = runFolder({ suite: result.suite, ...(variant === undefined ? {} : { variant }) });
  return name === base || (name.startsWith(`${base}-`) && /^\d+$/.test(name.slice(base.length + 1)));
}

async function removeStale(stale: Stale, only?: ReadonlySet<string>): Promise<void> {
  for (const path of stale.files) {
    if (only !== undefined && !only.has(path)) continue;
    try {
      await unlink(path);
    } catch (e) {
      if (codeOf(e) !== 'ENOENT') throw writeError(path, 'remove the stale report', e);
    }
  }
  if (only !== undefined) return;
  for (const path of [...stale.dirs].sort((a, b) => b.length - a.length)) {
    // Not empty: it holds someone else's files (or this run's), which stay.
    await rmdir(path).catch(() => {});
  }
}

/** The counterexample files this run's results name: they are this run's, not stale. */
function counterexamplesOf(results: readonly SuiteResult[]): Set<string> {
  const files = new Set<string>();
  for (const r of results) {
    for (const c of r.checks) if (c.counterexample !== undefined) files.add(resolve(c.counterexample.file));
  }
  return files;
}

async function realDir(dir: string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true });
    return await realpath(dir);
  } catch (e) {
    throw writeError(dir, 'create the report directory', e);
  }
}

/**
 * Write the reports of a run into `dir` (created if needed): for one suite results.json,
 * junit.xml and report.html; for several, <suite>[-<variant>]/results.json each plus combined
 * junit.xml, report.html and summary.json. Returns the paths written.
 *
 * Under the directory's lock (prepareReportDir's, else taken here; released at the end
 * either way). Every file is first written whole beside its place (`<name>.tmp-<pid>`), and
 * only when all are written are they renamed into place: a full disk or an interrupt leaves
 * the earlier run's reports as they were, never a report cut short. Just before the renames
 * the files of earlier runs that this one does not write (wirecheck's names only: see
 * staleIn) are removed, so the directory holds one run's reports.
 */
export async function writeReports(
  dir: string,
  results: readonly SuiteResult[],
  options: ReportOptions,
): Promise<string[]> {
  const files = reportFiles(results, options);
  const real = await realDir(dir);
  if (!holdsReportDir(real)) await lockReportDir(real, dir);
  try {
    return await writeLocked(dir, files, results, options.keep ?? []);
  } finally {
    await unlockReportDir(real);
  }
}

async function writeLocked(
  dir: string,
  files: ReadonlyMap<string, string>,
  results: readonly SuiteResult[],
  kept: readonly string[],
): Promise<string[]> {
  for (const relative of files.keys()) await refuseNonRegular(dir, relative);
  const finals = [...files.keys()].map((relative) => resolve(dir, relative));
  const keep = new Set([...finals, ...counterexamplesOf(results), ...kept.map((k) => resolve(k))]);
  const stale: Stale = { files: [], dirs: [] };
  await staleIn(resolve(dir), true, keep, stale);
  // A stale file where this run puts a suite's folder goes first, or the folder cannot be made.
  const folders = new Set(finals.map((f) => dirname(f)));
  await removeStale(stale, folders);
  const temps: string[] = [];
  const created: string[] = [];
  try {
    for (const [relative, content] of files) {
      const path = resolve(dir, relative);
      const folder = dirname(path);
      if ((await lstatOrUndefined(folder)) === undefined) {
        await mkdir(folder, { recursive: true }).catch((e) => {
          throw writeError(path, 'write report', e);
        });
        created.push(folder);
      }
      const temp = `${path}.tmp-${process.pid}`;
      temps.push(temp);
      await writeTemp(temp, content).catch((e) => {
        throw writeError(path, 'write report', e);
      });
    }
    await removeStale(stale);
    for (const [i, temp] of temps.entries()) {
      const path = finals[i] as string;
      await rename(temp, path).catch((e) => {
        throw writeError(path, 'write report', e);
      });
    }
  } catch (e) {
    for (const temp of temps) await unlink(temp).catch(() => {});
    for (const folder of created.reverse()) await rmdir(folder).catch(() => {});
    throw e;
  }
  return [...files.keys()].map((relative) => join(dir, relative));
}

/** Create the temporary file new ('wx': never open whatever else is there), whole. */
async function writeTemp(temp: string, content: string): Promise<void> {
  try {
    await writeFile(temp, content, { encoding: 'utf8', flag: 'wx' });
  } catch (e) {
    if (codeOf(e) !== 'EEXIST') throw e;
    // Left by a process of this pid killed while writing: the lock says none is writing now.
    await unlink(temp);
    await writeFile(temp, content, { encoding: 'utf8', flag: 'wx' });
  }
}
