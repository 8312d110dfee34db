import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { cutShort, remarkBaseline, verdictOf } from '../harness/baseline.js';
import { type BoundedRead, formatBytes, readBounded } from '../harness/bounded-read.js';
import { HARNESS_ERRORS, WirecheckError } from '../harness/errors.js';
import { type MergeInput, mergeResults } from '../harness/merge.js';
import { SuiteResult } from '../harness/results.js';
import { runName } from '../harness/run-name.js';
import { stopExitCode } from '../harness/stop.js';
import { formatSuiteSummary, formatTotals, shouldUseColor } from '../reporters/console.js';
import { prepareReportDir } from '../reporters/report-dir.js';
import { withoutTerminalControls } from '../reporters/text.js';
import { writeReports } from '../reporters/write.js';
import { findSuite } from '../suites/registry.js';
import type { CliContext } from './context.js';
import { parseOptions } from './options.js';

type Finish = (exitCode: number) => void;

const MergeOptions = z.object({
  out: z.string().min(1, '--out must not be empty'),
  strict: z.boolean().optional(),
});

/** How deep below a given directory results.json files are looked for (artifact/shard/suite/). */
const MAX_DEPTH = 4;

async function resultsFilesUnder(dir: string, depth: number, skip: string): Promise<string[]> {
  if (depth > MAX_DEPTH || resolve(dir) === skip) return [];
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    // A directory the user named (or one below it) that cannot be listed is their setup, not a bug.
    const reason = e instanceof Error ? e.message : String(e);
    throw new WirecheckError('WC_MERGE', `cannot read directory ${dir}: ${reason}`, { cause: e });
  }
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await resultsFilesUnder(path, depth + 1, skip)));
    else if (entry.name === 'results.json') found.push(path);
  }
  return found;
}

/** The results.json files named by the arguments: files as given, directories searched. */
export async function findResultsFiles(paths: readonly string[], out: string): Promise<string[]> {
  const skip = resolve(out);
  const files: string[] = [];
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new WirecheckError('WC_MERGE', `cannot read ${path}: ${reason}`, { cause: e });
    }
    if (!isDirectory) files.push(path);
    else if (`${resolve(path)}${sep}`.startsWith(`${skip}${sep}`)) {
      // Skipped silently, it read as a shard gone missing.
      throw new WirecheckError(
        'WC_MERGE',
        `${path} is in --out ${out}, which is written and never read back: give --out another directory`,
      );
    } else files.push(...(await resultsFilesUnder(path, 0, skip)));
  }
  return [...new Set(files)];
}

/**
 * Bytes a results.json may have to be merged. A shard of `wirecheck all`'s largest suite is
 * some 50 KB, and every text of a result is clipped (RESULT_TEXT_LIMITS: about 40 KB for a
 * check at most, so a few MB for a suite of a hundred checks); 64 MiB leaves room for any real
 * one while a file the merge would have to hold whole, parse and write out again stays bounded.
 */
export const RESULTS_MAX_BYTES = 64 * 1024 * 1024;

async function readResults(path: string): Promise<MergeInput> {
  const cannot = (reason: string, cause?: unknown) =>
    new WirecheckError('WC_MERGE', `cannot read ${path}: ${reason}`, { cause });
  let read: BoundedRead;
  try {
    read = await readBounded(path, { maxBytes: RESULTS_MAX_BYTES });
  } catch (e) {
    throw cannot(e instanceof Error ? e.message : String(e), e);
  }
  if (read.kind === 'not-a-file' || read.kind === 'timed-out') {
    throw cannot(`expected a regular file, found ${read.kind === 'not-a-file' ? read.what : 'a pipe'}`);
  }
  if (read.kind === 'too-large') {
    throw cannot(
      `it is at least ${formatBytes(read.bytes)}, more than the ${formatBytes(RESULTS_MAX_BYTES)} a results.json may have`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new WirecheckError('WC_MERGE', `cannot read ${path} as JSON: ${reason}`, { cause: e });
  }
  const parsed = SuiteResult.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` (${issue.path.join('.') || 'top level'}: ${issue.message})`;
    throw new WirecheckError('WC_MERGE', `${path} is not a wirecheck results.json${where}`);
  }
  return { source: path, result: parsed.data };
}

/**
 * The exit status of merged results, as `test` would give the whole run: a shard stopped by
 * a harness error or an interrupt judged only part of its checks, so the merge cannot pass
 * on the rest (2, 130/143); a shard whose target could not run, 2; else the verdict.
 */
export function mergedExitCode(results: readonly SuiteResult[], strict: boolean): number {
  for (const r of results) {
    const stopped = stopExitCode(r.stopped);
    if (stopped !== undefined) return stopped;
  }
  if (results.some((r) => r.error !== undefined)) return HARNESS_ERRORS.WC_TARGET_UNAVAILABLE.exitCode;
  return verdictOf(results, strict);
}

/**
 * A line about a merged run, named once: the messages of a shard's error and the merge's own
 * warnings name their suite already ("suite tool-server: ...").
 */
function aboutSuite(result: SuiteResult, text: string): string {
  const clean = withoutTerminalControls(text);
  const named = [result.suite, runName(result)].some((name) => clean.startsWith(`suite ${name}: `));
  return named ? clean : `suite ${runName(result)}: ${clean}`;
}

/**
 * `wirecheck merge-reports --out DIR <dirs or results.json...>`: the shards of a CI matrix
 * back into one set of reports. Exits like `test` (see mergedExitCode).
 */
export function addMergeReportsCommand(program: Command, ctx: CliContext, finish: Finish): void {
  program
    .command('merge-reports')
    .description("combine the results.json of a suite's shards into one set of reports")
    .argument('<inputs...>', 'results.json files, or directories to search for them')
    .requiredOption('--out <dir>', 'write the merged results.json, junit.xml and report.html there')
    .option('--strict', 'count warnings (level "should") as failures in the verdict and junit.xml')
    .action(async (inputs: string[], opts: Record<string, unknown>) => {
      const options = parseOptions(MergeOptions, opts);
      const strict = options.strict ?? false;
      const files = await findResultsFiles(inputs, options.out);
      const merged = mergeResults(await Promise.all(files.map(readResults)), (suite) =>
        findSuite(suite)?.suite.checks.map((c: { id: string }) => c.id),
      );
      // Each shard marked its baseline checks under its own --strict; the verdict is this one's.
      const results = merged.map((r) => remarkBaseline(r, strict));
      await prepareReportDir(options.out);
      await writeReports(options.out, results, { strict });
      const style = { color: shouldUseColor(ctx.stdout, ctx.env) };
      const out = (text: string) => ctx.stdout.write(`${text}\n`);
      out(`merged ${files.length} ${files.length === 1 ? 'file' : 'files'}`);
      for (const result of results) out(formatSuiteSummary(result, style));
      out(`reports written to ${options.out}`);
      out(formatTotals(results, { strict }));
      // A shard whose target could not run judged nothing: the merged run cannot pass.
      const unavailable = results.filter((r) => r.error !== undefined);
      for (const r of unavailable)
        ctx.stderr.write(`wirecheck: ${r.error?.code}: ${aboutSuite(r, r.error?.message ?? '')}\n`);
      for (const r of results) {
        if (stopExitCode(r.stopped) !== undefined || cutShort(r))
          ctx.stderr.write(
            `wirecheck: ${aboutSuite(r, `a shard stopped early (${r.stopped?.message ?? ''}): the checks it did not run are not judged`)}\n`,
          );
        for (const warning of r.warnings ?? [])
          ctx.stderr.write(`wirecheck: warning: ${aboutSuite(r, warning)}\n`);
      }
      finish(mergedExitCode(results, strict));
    });
}
