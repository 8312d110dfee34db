import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { consoleLineIo, type LineIo } from '../harness/line-io.js';
import { runAllBench } from './all-bench.js';
import { checkedOutCommit } from './commit.js';
import { clearSdkEnvironment } from './consumers.js';
import { procLoadProbe } from './cpu-load.js';
import { describeMachine } from './machine.js';
import { memoryComparisons } from './peer-memory.js';
import type { PeerSizes } from './peer-servers.js';
import { runProxyBench } from './proxy-bench.js';
import { QuietGate } from './quiet.js';
import { readReport, writeReport } from './report-file.js';
import { type BenchRow, goalMet, hasGoal, mergeRows, stampRows } from './rows.js';
import { measureComparisons, runBench } from './run.js';
import { FULL_RUNNER_SIZES, QUICK_RUNNER_SIZES, runRunnerBench } from './runner-bench.js';
import type { StreamSizes } from './servers.js';
import { runSuiteBench } from './suite-bench.js';
import { formatMarkdown, formatTable } from './table.js';
import type { ToolSizes } from './tool-comparisons.js';

export const FULL_SIZES: StreamSizes = { textDeltas: 100_000, jsonFragments: 10_000, framesPerWrite: 64 };
/** --quick: a smoke run that proves every piece works, measuring nothing worth keeping. */
export const QUICK_SIZES: StreamSizes = { textDeltas: 300, jsonFragments: 200, framesPerWrite: 64 };
export const FULL_PEER_SIZES: PeerSizes = {
  oneDeltas: 100_000,
  manyStreams: 100,
  manyDeltas: 1_000,
  shortDeltas: 10,
  shortConcurrency: 64,
  shortRequests: 1_280,
  memoryStreams: 100,
  memoryDeltas: 10_000,
  slowPauseMs: 2_000,
  pacedMs: 1_000,
};
export const QUICK_PEER_SIZES: PeerSizes = {
  oneDeltas: 300,
  manyStreams: 8,
  manyDeltas: 50,
  shortDeltas: 10,
  shortConcurrency: 8,
  shortRequests: 32,
  memoryStreams: 4,
  memoryDeltas: 200,
  slowPauseMs: 100,
  pacedMs: 60,
};
export const FULL_TOOL_SIZES: ToolSizes = {
  sequentialCalls: 400,
  inFlight: 64,
  inFlightCalls: 3_200,
  sessions: 200,
  callsPerSession: 10,
  stdioSequentialCalls: 1_000,
  stdioInFlightCalls: 10_000,
};
export const QUICK_TOOL_SIZES: ToolSizes = {
  sequentialCalls: 10,
  inFlight: 8,
  inFlightCalls: 40,
  sessions: 6,
  callsPerSession: 2,
  stdioSequentialCalls: 10,
  stdioInFlightCalls: 40,
};
/** The parts of a run, in the order they run (`--only` picks some). */
export const BENCH_GROUPS = [
  'messages',
  'peers',
  'memory',
  'pacing',
  'tools',
  'runner',
  'recording',
  'suites',
] as const;
export type BenchGroup = (typeof BENCH_GROUPS)[number];
/** Seconds the whole run may spend waiting for a quiet machine and redoing disturbed rounds. */
export const DEFAULT_MAX_WAIT_S = 90;
export const DEFAULT_ROUNDS = 21;
export const DEFAULT_WARMUP_ROUNDS = 3;
export const DEFAULT_OUT = 'reports/bench.json';
export const DEFAULT_QUICK_OUT = 'reports/bench-quick.json';

const USAGE = `usage: npm run bench -- [--rounds N] [--warmup N] [--quick] [--out PATH] [--only GROUPS]
                          [--max-wait S] [--markdown]
  --rounds N     measured rounds per comparison, medians taken (default ${DEFAULT_ROUNDS}, at least 1;
                 comparisons with a slow peer take at most 5-7)
  --warmup N     rounds run first and discarded (default ${DEFAULT_WARMUP_ROUNDS})
  --quick        smoke run: ${QUICK_SIZES.textDeltas} text deltas, ${QUICK_SIZES.jsonFragments} fragments, short peer streams,
                 a few runner commands, 10 MiB of runner output instead of 1 GiB, 1 round, 1 warm-up,
                 no waiting for a quiet machine (writes ${DEFAULT_QUICK_OUT} unless --out is given)
  --out PATH     report to merge the rows into (default ${DEFAULT_OUT})
  --only GROUPS  comma-separated parts to run: ${BENCH_GROUPS.join(', ')} (default all)
  --max-wait S   seconds the run may spend waiting for a quiet machine and redoing disturbed rounds
                 (default ${DEFAULT_MAX_WAIT_S}, --quick 0); then it measures anyway and notes it in the rows
  --markdown     also print the table as Markdown, with the machine it ran on (for docs/performance.md)
Exit status: 0 when the bench ran (missed goals are printed, not failed), 2 on bad usage or a crash
(a part that crashes is reported, the other parts still run and their rows are written).`;

export type BenchIo = LineIo;

const consoleIo: BenchIo = consoleLineIo;

class UsageError extends Error {}

export interface BenchCommand {
  sizes: StreamSizes;
  peers: PeerSizes;
  tools: ToolSizes;
  groups: ReadonlySet<BenchGroup>;
  maxWaitMs: number;
  markdown: boolean;
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

function groupsOf(only: string | undefined): ReadonlySet<BenchGroup> {
  if (only === undefined) return new Set(BENCH_GROUPS);
  const names = only.split(',').map((g) => g.trim());
  for (const name of names) {
    if (!(BENCH_GROUPS as readonly string[]).includes(name)) {
      throw new UsageError(`--only takes parts among ${BENCH_GROUPS.join(', ')}, got "${name}"`);
    }
  }
  return new Set(names as BenchGroup[]);
}

export function parseBenchCommand(args: readonly string[]): BenchCommand {
  let values: {
    rounds?: string | undefined;
    warmup?: string | undefined;
    quick?: boolean | undefined;
    out?: string | undefined;
    only?: string | undefined;
    'max-wait'?: string | undefined;
    markdown?: boolean | undefined;
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
        only: { type: 'string' },
        'max-wait': { type: 'string' },
        markdown: { type: 'boolean' },
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
    peers: quick ? QUICK_PEER_SIZES : FULL_PEER_SIZES,
    tools: quick ? QUICK_TOOL_SIZES : FULL_TOOL_SIZES,
    groups: groupsOf(values.only),
    maxWaitMs: count(values['max-wait'], 'max-wait', 0, quick ? 0 : DEFAULT_MAX_WAIT_S) * 1000,
    markdown: values.markdown ?? false,
    quick,
    rounds: count(values.rounds, 'rounds', 1, quick ? 1 : DEFAULT_ROUNDS),
    warmupRounds: count(values.warmup, 'warmup', 0, quick ? 1 : DEFAULT_WARMUP_ROUNDS),
    out: values.out ?? (quick ? DEFAULT_QUICK_OUT : DEFAULT_OUT),
    help: values.help ?? false,
  };
}

/**
 * The summary under the table: the goals of the rows measured, and the parts that crashed,
 * whose rows are missing (so "all goals met" is never read as the whole bench's).
 */
export function summary(rows: readonly BenchRow[], crashed: readonly string[] = []): string[] {
  const aimed = rows.filter(hasGoal);
  const missed = aimed.filter((r) => !goalMet(r));
  const context = rows.length - aimed.length;
  const also = context > 0 ? ` (and ${context} context rows without a goal)` : '';
  const lost = crashed.length > 0 ? [`parts that crashed, no rows: ${crashed.join(', ')}`] : [];
  if (missed.length === 0) return [`all ${aimed.length} goals met${also}`, ...lost];
  return [
    `GOALS MISSED: ${missed.length} of ${aimed.length}${also}`,
    ...missed.map((r) => `  ${r.name}: ratio ${r.ratio.toFixed(2)}, goal ${r.goal}`),
    ...lost,
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
    const { sizes, rounds, warmupRounds, groups } = command;
    const started = performance.now();
    io.out(
      `wirecheck bench: ${sizes.textDeltas} text deltas, ${sizes.jsonFragments} input_json_delta fragments, ` +
        `${warmupRounds} warm-up + ${rounds} measured rounds, interleaved; node ${process.version}`,
    );
    const machine = describeMachine();
    for (const line of machine) io.out(line);
    const gate = new QuietGate({ probe: procLoadProbe(), budgetMs: command.maxWaitMs, log: io.out });
    const share = await gate.look();
    io.out(`other processes used ${Math.round(share * 100)}% of the CPUs at the start`);
    const measure = { rounds, warmupRounds, gate, log: io.out };
    const rows: BenchRow[] = [];
    // A part that crashes is reported and the run goes on: a long run keeps what it measured.
    const failed: string[] = [];
    const onPartFailed = (part: string, e: unknown) => {
      failed.push(part);
      io.err(`bench part ${part} crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    };
    const commit = checkedOutCommit();
    const part = async (name: string, measure: () => Promise<BenchRow[]>) => {
      try {
        // Stamped: the report keeps earlier runs' rows, which must not pass for today's.
        rows.push(...stampRows(await measure(), { measuredAt: new Date().toISOString(), commit }));
      } catch (e) {
        onPartFailed(name, e);
      }
    };
    if (['messages', 'peers', 'pacing', 'tools'].some((g) => groups.has(g as BenchGroup))) {
      await part('servers', () =>
        runBench({
          ...measure,
          sizes,
          messages: groups.has('messages'),
          peers: groups.has('peers') || groups.has('pacing') ? command.peers : undefined,
          peerRows: groups.has('peers'),
          pacing: groups.has('pacing'),
          tools: groups.has('tools') ? command.tools : undefined,
          inlineServers: options.inlineServers ?? false,
          onPartFailed,
        }),
      );
    }
    if (groups.has('memory')) {
      await part('memory', async () => {
        const memory = await memoryComparisons(command.peers);
        io.out(memory.summary);
        return measureComparisons(memory.comparisons, measure);
      });
    }
    if (groups.has('runner')) {
      const runnerSizes = command.quick ? QUICK_RUNNER_SIZES : FULL_RUNNER_SIZES;
      await part('runner', () => runRunnerBench({ sizes: runnerSizes, ...measure }));
    }
    if (groups.has('recording')) {
      await part('recording', () =>
        runProxyBench({ ...measure, sizes, inlineServers: options.inlineServers ?? false }),
      );
    }
    if (groups.has('suites')) {
      await part('suites', async () => [
        ...(await runSuiteBench({ quick: command.quick, log: io.out })),
        ...(await runAllBench({ quick: command.quick, log: io.out })),
      ]);
    }
    const minutes = ((performance.now() - started) / 60_000).toFixed(1);
    io.out('');
    for (const line of formatTable(rows)) io.out(line);
    io.out('');
    for (const line of summary(rows, failed)) io.out(line);
    io.out(
      `took ${minutes} min, ${(gate.spent / 1000).toFixed(0)} s of it waiting for a quiet machine or redoing rounds`,
    );
    if (command.markdown) {
      io.out('');
      io.out('<!-- bench table: paste into docs/performance.md -->');
      for (const line of machine) io.out(`${line}  `);
      io.out('');
      for (const line of formatMarkdown(rows)) io.out(line);
    }
    await writeReport(out, mergeRows(existing, rows));
    io.out(`wrote ${out}`);
    if (failed.length > 0) {
      io.err(`bench parts crashed: ${failed.join(', ')} (the rows of the others were written)`);
      return 2;
    }
    return 0;
  } catch (e) {
    io.err(`bench crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 2;
  }
}
