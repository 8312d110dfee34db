import { benchComparisons, type Comparison } from './comparisons.js';
import { runInterleaved, type Variant } from './interleave.js';
import { pacingComparison } from './pacing.js';
import { peerComparisons } from './peer-comparisons.js';
import type { PeerSizes } from './peer-servers.js';
import type { QuietGate } from './quiet.js';
import { type BenchRow, withNote } from './rows.js';
import { benchStreams, type StreamSizes, startBenchServers } from './servers.js';
import { streamableToolComparisons } from './streamable-comparisons.js';
import { sseToolComparisons, stdioToolComparisons, type ToolSizes } from './tool-comparisons.js';

export interface MeasureOptions {
  rounds: number;
  warmupRounds: number;
  /** Waits for a quiet machine and redoes disturbed rounds; its notes go into the rows. */
  gate?: QuietGate | undefined;
  /** Progress lines. */
  log?: ((line: string) => void) | undefined;
}

/** Rounds of one comparison: the run's, capped by the comparison's own (a slow peer). */
export function roundsOf(comparison: Pick<Comparison, 'rounds' | 'warmupRounds'>, options: MeasureOptions) {
  const rounds = Math.min(options.rounds, comparison.rounds ?? options.rounds);
  // A capped comparison is a slow one: one warm-up round is enough for it.
  const cap = comparison.warmupRounds ?? (comparison.rounds === undefined ? options.warmupRounds : 1);
  const warmupRounds = Math.min(options.warmupRounds, cap);
  return { rounds, warmupRounds };
}

/** Longest one sample may take: a server that stops answering fails its part instead of hanging the run. */
export const SAMPLE_TIMEOUT_MS = 120_000;

/** A variant whose samples fail after `ms`. */
export function withTimeout(variant: Variant, ms: number): Variant {
  return {
    name: variant.name,
    run: () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${variant.name}: one sample took more than ${ms} ms`)),
          ms,
        );
      });
      return Promise.race([variant.run(), timeout]).finally(() => clearTimeout(timer));
    },
  };
}

/** Run each comparison interleaved, in order: its rows, with the gate's note when rounds ran under load. */
export async function measureComparisons(
  comparisons: Iterable<Comparison>,
  options: MeasureOptions,
): Promise<BenchRow[]> {
  const { gate, log = () => {} } = options;
  const rows: BenchRow[] = [];
  for (const comparison of comparisons) {
    const { rounds, warmupRounds } = roundsOf(comparison, options);
    const started = performance.now();
    const variants = comparison.variants.map((v) => withTimeout(v, SAMPLE_TIMEOUT_MS));
    const samples = await runInterleaved(variants, { rounds, warmupRounds, gate });
    const note = gate?.takeNote();
    rows.push(...comparison.rows(samples).map((r) => withNote(r, note)));
    const took = ((performance.now() - started) / 1000).toFixed(1);
    log(`measured ${comparison.title} (${warmupRounds} + ${rounds} rounds, ${took} s)`);
    if (note !== undefined) log(`  note: ${note}`);
  }
  return rows;
}

export interface BenchRunOptions extends MeasureOptions {
  sizes: StreamSizes;
  /** Part 1's rows (mock and client against baselines); default true. */
  messages?: boolean;
  /** When set, the peer servers are started too, for the rows against aimock and the pacing rows. */
  peers?: PeerSizes | undefined;
  /** With peers: the mock against aimock (default true). */
  peerRows?: boolean;
  /** With peers: scripted pacing (default true). */
  pacing?: boolean;
  /** When set, the tool-server rows (SSE and stdio). */
  tools?: ToolSizes | undefined;
  /** Servers in this thread instead of a worker thread (tests). */
  inlineServers?: boolean;
  /** Told of a part that crashed; the run goes on with the next part. */
  onPartFailed?: ((part: string, error: unknown) => void) | undefined;
}

/**
 * Start the servers, run every comparison interleaved, close the servers: the rows
 * measured. With `onPartFailed` a part that crashes is reported there and the others
 * still run (a long run keeps what it measured); without it the crash propagates.
 */
export async function runBench(options: BenchRunOptions): Promise<BenchRow[]> {
  const { sizes, peers } = options;
  const streams = benchStreams(sizes);
  const servers = await startBenchServers(sizes, {
    inline: options.inlineServers ?? false,
    extra: { ...(peers && { peers }), ...(options.tools && { tools: true }) },
  });
  const rows: BenchRow[] = [];
  const part = async (name: string, measure: () => Promise<BenchRow[]>) => {
    try {
      rows.push(...(await measure()));
    } catch (e) {
      if (!options.onPartFailed) throw e;
      options.onPartFailed(name, e);
    }
  };
  try {
    if (options.messages !== false) {
      await part('messages', () =>
        measureComparisons(benchComparisons(sizes, streams, servers.urls), options),
      );
    }
    const urls = servers.urls.peers;
    if (peers && urls && options.peerRows !== false) {
      await part('peers', async () => measureComparisons(await peerComparisons(peers, urls), options));
    }
    if (peers && urls && options.pacing !== false) {
      await part('pacing', async () => measureComparisons([await pacingComparison(peers, urls)], options));
    }
    const tools = options.tools;
    const toolUrls = servers.urls.tools;
    if (tools && toolUrls) {
      await part('tools (SSE)', async () => {
        const sse = sseToolComparisons(tools, toolUrls);
        try {
          return await measureComparisons(sse.comparisons, options);
        } finally {
          sse.close();
        }
      });
      await part('tools (Streamable HTTP)', async () => {
        const streamable = streamableToolComparisons(tools, toolUrls.streamable);
        try {
          return await measureComparisons(streamable.comparisons, options);
        } finally {
          streamable.close();
        }
      });
      await part('tools (stdio)', async () => {
        const stdio = await stdioToolComparisons(tools);
        try {
          return await measureComparisons(stdio.comparisons, options);
        } finally {
          await stdio.close();
        }
      });
    }
    return rows;
  } finally {
    await servers.close();
  }
}
