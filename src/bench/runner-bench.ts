import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IsolationLevel } from '../runner/index.js';
import { runInterleaved } from './interleave.js';
import type { QuietGate } from './quiet.js';
import { type BenchRow, withNote } from './rows.js';
import { type MemorySizes, measureRunnerMemory } from './runner-memory.js';
import { runnerRateBench } from './runner-rate.js';

export interface RunnerBenchSizes {
  /** Commands per sample of each rate comparison (a util-linux command takes ~80 ms, the others ~5-30 ms). */
  readonly commandsPerSample: Readonly<Record<IsolationLevel, number>>;
  readonly memory: MemorySizes;
}

/** 35-65 s on 2 cores (quiet to loaded) with the default 3 + 21 rounds. */
export const FULL_RUNNER_SIZES: RunnerBenchSizes = {
  commandsPerSample: { none: 8, bwrap: 6, 'util-linux': 2 },
  memory: { outputBytes: 1024 * 1024 * 1024, rounds: 3 },
};
/** --quick: proves every piece runs, in a few seconds. */
export const QUICK_RUNNER_SIZES: RunnerBenchSizes = {
  commandsPerSample: { none: 3, bwrap: 3, 'util-linux': 2 },
  memory: { outputBytes: 10 * 1024 * 1024, rounds: 1 },
};

/** The order: without isolation first, then the sandboxes. */
const LEVELS: readonly IsolationLevel[] = ['none', 'bwrap', 'util-linux'];

export interface RunnerBenchOptions {
  readonly sizes: RunnerBenchSizes;
  readonly rounds: number;
  readonly warmupRounds: number;
  /** Progress lines, skipped levels and the milliseconds per command. */
  readonly log?: ((line: string) => void) | undefined;
  /** Waits for a quiet machine before each rate round; its notes go into the rows. */
  readonly gate?: QuietGate | undefined;
}

/**
 * The bash runner rows: its commands/s at each isolation level that runs here against bare
 * spawns (a level that cannot run is skipped, and the log says why), then its peak memory
 * while a command prints a lot.
 */
export async function runRunnerBench(options: RunnerBenchOptions): Promise<BenchRow[]> {
  const { sizes, rounds, warmupRounds, gate, log = () => {} } = options;
  const base = await mkdtemp(join(tmpdir(), 'wirecheck-bench-runner-'));
  const rows: BenchRow[] = [];
  try {
    // As root the runner drops to uid 65534, which must get through to the working directories.
    await chmod(base, 0o755);
    for (const level of LEVELS) {
      const bench = await runnerRateBench(level, join(base, level), sizes.commandsPerSample[level]);
      if ('skipped' in bench) {
        log(`skipped isolation ${level}: ${bench.skipped}`);
        continue;
      }
      try {
        const started = performance.now();
        const samples = await runInterleaved(bench.comparison.variants, { rounds, warmupRounds, gate });
        const note = gate?.takeNote();
        rows.push(...bench.comparison.rows(samples).map((r) => withNote(r, note)));
        const took = ((performance.now() - started) / 1000).toFixed(1);
        log(`measured ${bench.comparison.title} (${warmupRounds} + ${rounds} rounds, ${took} s)`);
        if (note !== undefined) log(`  note: ${note}`);
        log(`  ${bench.summary(samples)}`);
      } finally {
        await bench.close();
      }
    }
    const started = performance.now();
    const memory = await measureRunnerMemory(sizes.memory, join(base, 'memory'), 'auto');
    rows.push(...memory.rows);
    const took = ((performance.now() - started) / 1000).toFixed(1);
    log(`measured runner peak RSS growth (${sizes.memory.rounds} rounds of fresh processes, ${took} s)`);
    log(`  ${memory.summary}`);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  return rows;
}
