import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchMismatchError } from './comparisons.js';
import { drainStream } from './drain.js';
import type { Variant } from './interleave.js';
import { type HostedUrl, startProxyBenchServer } from './proxy-servers.js';
import type { BenchRow } from './rows.js';
import { comparisonRow } from './rows.js';
import { type MeasureOptions, measureComparisons } from './run.js';
import type { StreamSizes } from './servers.js';
import { textStream } from './streams.js';

/** The aim: the recording proxy keeps at least 0.8 of the direct throughput. */
export const PROXY_GOAL = 0.8;
/** Streams read one after the other per sample (one batched stream is a few ms: mostly noise). */
const STREAMS_PER_SAMPLE = 4;

export interface ProxyBenchOptions extends MeasureOptions {
  readonly sizes: StreamSizes;
  /** Servers in this thread instead of worker threads (tests). */
  readonly inlineServers?: boolean;
}

function drainVariant(name: string, url: string, frames: number, expected: { bytes?: number }): Variant {
  return {
    name,
    run: async () => {
      const start = performance.now();
      for (let i = 0; i < STREAMS_PER_SAMPLE; i++) {
        const bytes = await drainStream(url);
        expected.bytes ??= bytes;
        if (bytes !== expected.bytes) {
          throw new BenchMismatchError(
            `${name}: a body of ${bytes} bytes, the other side's was ${expected.bytes}: not the same stream`,
          );
        }
      }
      return (frames * STREAMS_PER_SAMPLE) / ((performance.now() - start) / 1000);
    },
  };
}

/**
 * The recording proxy's row (`wirecheck record messages`, src/recording): the minimal
 * reader drains the mock's text stream through the proxy, which records every chunk and
 * writes one fixture per exchange to a temporary directory, against draining the same
 * mock directly; interleaved, frames/s. The mock and the proxy each run in a worker thread
 * of their own, as they would be processes of their own.
 */
export async function runProxyBench(options: ProxyBenchOptions): Promise<BenchRow[]> {
  const { sizes } = options;
  const inline = options.inlineServers ?? false;
  const outDir = await mkdtemp(join(tmpdir(), 'wirecheck-bench-proxy-'));
  const started: HostedUrl[] = [];
  try {
    const mock = await startProxyBenchServer(
      { kind: 'mock', textDeltas: sizes.textDeltas, framesPerWrite: sizes.framesPerWrite },
      inline,
    );
    started.push(mock);
    const proxy = await startProxyBenchServer({ kind: 'proxy', upstream: mock.url, outDir }, inline);
    started.push(proxy);
    const { frames } = textStream(sizes.textDeltas);
    const shape = `${sizes.textDeltas} text deltas, ${sizes.framesPerWrite} frames per write`;
    const expected: { bytes?: number } = {};
    return await measureComparisons(
      [
        {
          title: `recording proxy vs direct, ${shape}`,
          variants: [
            drainVariant('proxy', proxy.url, frames, expected),
            drainVariant('direct', mock.url, frames, expected),
          ],
          rows: (s) => [
            comparisonRow(
              `recording proxy/direct to the mock, ${shape}`,
              'frames/s',
              PROXY_GOAL,
              s.proxy!,
              s.direct!,
            ),
          ],
        },
      ],
      options,
    );
  } finally {
    for (const s of started.reverse()) await s.close().catch(() => {});
    await rm(outDir, { recursive: true, force: true });
  }
}
