import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { consoleLineIo, type LineIo } from '../harness/line-io.js';
import { clearSdkEnvironment } from './consumers.js';
import { readReport, writeReport } from './report-file.js';
import { type BenchRow, goalMet, mergeRows } from './rows.js';
import { runBench } from './run.js';
import { FULL_RUNNER_SIZES, QUICK_RUNNER_SIZES, runRunnerBench } from './runner-bench.js';
import type { StreamSizes } from './servers.js';
import { formatTable } from './table.js';

export const FULL_SIZES: StreamSizes = { textDeltas: 100_000, jsonFragments: 10_000, framesPerWrite: 64 };
/** --quick: a smoke run that proves every piece works, measuring nothing worth keeping. */
export const QUICK_SIZES: StreamSizes = { textDeltas: 300, jsonFragments: 200, framesPerWrite: 64 };
export const DEFAULT_ROUNDS = 21;
export const DEFAULT_WARMUP_ROUNDS = 3;
export const DEFAULT_OUT = 'reports/bench.json';
export const DEFAULT_QUICK_OUT = 'reports/bench-quick.json';

const USAGE = `usage: npm run bench -- [--rounds N] [--warmup N] [--quick] [--out PATH]
  --rounds N   measured rounds per comparison, medians taken (default ${DEFAULT_ROUNDS}, at least 1)
  --warmup N   rounds run first and discarded (default ${DEFAULT_WARMUP_ROUNDS})
  --quick      smoke run: ${QUICK_SIZES.textDeltas} text deltas, ${QUICK_SIZES.jsonFragments} fragments, a few runner commands,
               10 MiB of runner output instead of 1 GiB, 1 round, 1 warm-up
               (writes ${DEFAULT_QUICK_OUT} unless --out is given)
  --out PATH   report to merge the rows into (default ${DEFAULT_OUT})
Exit status: 0 when the bench ran (missed goals are printed, not failed), 2 on bad usage or a crash.`;

export type BenchIo = LineIo;

const consoleIo: BenchIo = consoleLineIo;

class UsageError extends Error {}

export interface BenchCommand {
  sizes: StreamSizes;
  quick: boolean;
  rounds: number;
  warmupRounds: number;
  out: string;
  help: boolean;
}

function count(value: string | undefined, name: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got "${value}"`);
  }
  return Number(value);
}

export function parseBenchCommand(args: readonly string[]): BenchCommand {
  let values: {
    rounds?: string | undefined;
    warmup?: string | undefined;
    quick?: boolean | undefined;
    out?: string | undefined;
    help?: boolean | undefined;
  };
  try {
    values = parseArgs({
      args: [...args],
      options: {
        rounds: { type: 'string' },
        warmup: { type: 'string' },
        quick: { type: 'boolean' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const quick = values.quick ?? false;
  return {
    sizes: quick ? QUICK_SIZES : FULL_SIZES,
    quick,
    rounds: count(values.rounds, 'rounds', 1, quick ? 1 : DEFAULT_ROUNDS),
    warmupRounds: count(values.warmup, 'warmup', 0, quick ? 1 : DEFAULT_WARMUP_ROUNDS),
    out: values.out ?? (quick ? DEFAULT_QUICK_OUT : DEFAULT_OUT),
    help: values.help ?? false,
  };
}

function summary(rows: readonly BenchRow[]): string[] {
  const missed = rows.filter((r) => !goalMet(r));
  if (missed.length === 0) return [`all ${rows.length} goals met`];
  return [
    `GOALS MISSED: ${missed.length} of ${rows.length}`,
    ...missed.map((r) => `  ${r.name}: ratio ${r.ratio.toFixed(2)}, goal ${r.goal}`),
  ];
}

/**
 * The bench program: measures, prints the table, merges the rows into the report. Exit
 * status 0 when it ran, whatever the goals (they are printed); 2 on bad usage or a crash.
 */
export async function main(
  argv: readonly string[],
  io: BenchIo = consoleIo,
  options: { inlineServers?: boolean; cwd?: string } = {},
): Promise<number> {
  let command: BenchCommand;
  try {
    command = parseBenchCommand(argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (command.help) {
    io.out(USAGE);
    return 0;
  }
  const out = resolve(options.cwd ?? process.cwd(), command.out);
  try {
    // Read first: a report that cannot be merged into should stop the run before it measures.
    const existing = await readReport(out);
    clearSdkEnvironment();
    const { sizes, rounds, warmupRounds } = command;
    io.out(
      `wirecheck bench: ${sizes.textDeltas} text deltas, ${sizes.jsonFragments} input_json_delta fragments, ` +
        `${warmupRounds} warm-up + ${rounds} measured rounds, interleaved; node ${process.version}`,
    );
    const rows = await runBench({
      sizes,
      rounds,
      warmupRounds,
      inlineServers: options.inlineServers ?? false,
      log: io.out,
    });
    const runnerSizes = command.quick ? QUICK_RUNNER_SIZES : FULL_RUNNER_SIZES;
    rows.push(...(await runRunnerBench({ sizes: runnerSizes, rounds, warmupRounds, log: io.out })));
    io.out('');
    for (const line of formatTable(rows)) io.out(line);
    io.out('');
    for (const line of summary(rows)) io.out(line);
    await writeReport(out, mergeRows(existing, rows));
    io.out(`wrote ${out}`);
    return 0;
  } catch (e) {
    io.err(`bench crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 2;
  }
}
