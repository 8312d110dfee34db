import { benchComparisons } from './comparisons.js';
import { runInterleaved } from './interleave.js';
import type { BenchRow } from './rows.js';
import { benchStreams, type StreamSizes, startBenchServers } from './servers.js';

export interface BenchRunOptions {
  sizes: StreamSizes;
  rounds: number;
  warmupRounds: number;
  /** Servers in this thread instead of a worker thread (tests). */
  inlineServers?: boolean;
  /** Progress lines. */
  log?(line: string): void;
}

/** Start the servers, run every comparison interleaved, close the servers: the rows measured. */
export async function runBench(options: BenchRunOptions): Promise<BenchRow[]> {
  const { sizes, rounds, warmupRounds, log = () => {} } = options;
  const streams = benchStreams(sizes);
  const servers = await startBenchServers(sizes, { inline: options.inlineServers ?? false });
  const rows: BenchRow[] = [];
  try {
    for (const comparison of benchComparisons(sizes, streams, servers.urls)) {
      const started = performance.now();
      const samples = await runInterleaved(comparison.variants, { rounds, warmupRounds });
      rows.push(...comparison.rows(samples));
      const took = ((performance.now() - started) / 1000).toFixed(1);
      log(`measured ${comparison.title} (${warmupRounds} + ${rounds} rounds, ${took} s)`);
    }
  } finally {
    await servers.close();
  }
  return rows;
}
