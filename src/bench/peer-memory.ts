import { setTimeout as sleep } from 'node:timers/promises';
import { benchScript, type ChildServer, startChild } from './child-server.js';
import type { Comparison } from './comparisons.js';
import type { Variant } from './interleave.js';
import { probeTarget } from './peer-comparisons.js';
import {
  PEER_PROMPTS,
  type PeerSizes,
  type PeerStreamName,
  type ServerKind,
  streamUrl,
} from './peer-servers.js';
import { budgetRow, lowerIsBetterRow } from './rows.js';
import { MIB, PeakMeter, statusBytes } from './rss.js';
import { checked, type Probed, readStream, type StreamAt } from './timed-read.js';

/** The goals: mock peak RSS <= 1.2x raw, slow-reader growth < 16 MB. */
export const PEAK_RSS_GOAL = Number((1 / 1.2).toFixed(3));
export const SLOW_READER_BUDGET_MIB = 16;
/** Growth below this counts as this much: the noise of an idle process, and ratios stay finite. */
export const GROWTH_FLOOR_MIB = 0.1;
/** Rounds of a memory comparison (every sample starts a process; the slow reader waits 2 s). */
export const MEMORY_ROUNDS = 5;

/** The mock as it ships (64 frames per write), raw node:http writing the same bytes the same way, and aimock. */
const SERVERS: readonly { kind: ServerKind; variant: string }[] = [
  { kind: 'mock-64', variant: 'mock' },
  { kind: 'raw-64', variant: 'raw' },
  { kind: 'aimock', variant: 'aimock' },
];

interface Served {
  kind: ServerKind;
  child: ChildServer;
  url: string;
}

/** A fresh server process of `kind`, given to `measure`, then closed. */
async function withFreshServer<T>(
  script: string,
  kind: ServerKind,
  sizes: PeerSizes,
  measure: (s: Served) => Promise<T>,
): Promise<T> {
  const child = await startChild([process.execPath, script, JSON.stringify({ kind, sizes })]);
  try {
    return await measure({ kind, child, url: (JSON.parse(child.hello) as { url: string }).url });
  } finally {
    await child.close();
  }
}

/**
 * The memory comparisons. Every sample starts a fresh server process: memory a process
 * took once stays with it (V8 and malloc keep their pages), so a second measurement in
 * the same process would see neither the peak nor the growth again. The body lengths
 * are probed once, in processes of their own.
 */
export async function memoryComparisons(
  sizes: PeerSizes,
): Promise<{ comparisons: Comparison[]; summary: string }> {
  const script = benchScript('peer-child.js');
  const idle: string[] = [];
  const one: Probed[] = [];
  const many: Probed[] = [];
  for (const { kind } of SERVERS) {
    await withFreshServer(script, kind, sizes, async (s) => {
      idle.push(`${kind} ${((statusBytes(s.child.pid, 'VmRSS') ?? 0) / MIB).toFixed(0)} MiB`);
      const probe = async (name: PeerStreamName, deltas: number): Promise<Probed> => ({
        ...(await probeTarget(streamUrl(s.url, kind, name), PEER_PROMPTS[name], deltas)),
        name,
      });
      one.push(await probe('one', sizes.oneDeltas));
      many.push(await probe('memory', sizes.memoryDeltas));
    });
  }
  const variants = (measure: (s: Served, i: number) => Promise<number>): Variant[] =>
    SERVERS.map(({ kind, variant }, i) => ({
      name: variant,
      run: () => withFreshServer(script, kind, sizes, (s) => measure(s, i)),
    }));
  // A probe's URL is its own process's: the same path and body on a fresh one.
  const at = (s: Served, stream: Probed): StreamAt => ({
    ...stream,
    url: streamUrl(s.url, s.kind, stream.name),
  });
  const peak = async (s: Served, action: () => Promise<unknown>) => {
    const meter = new PeakMeter(s.child.pid);
    await action();
    return meter.stop() / MIB;
  };
  const read = (s: Served, stream: Probed, onFirst?: () => Promise<void>) => {
    const target = at(s, stream);
    return readStream(target.url, target.body, onFirst).then((r) => checked(s.kind, target, r));
  };
  const oneShape = `one ${sizes.oneDeltas}-delta stream`;
  const manyShape = `${sizes.memoryStreams} x ${sizes.memoryDeltas}-delta streams at once`;
  const pause = `${sizes.slowPauseMs / 1000} s`;
  const fresh = { rounds: MEMORY_ROUNDS, warmupRounds: 0 };
  const comparisons: Comparison[] = [
    {
      title: `peak RSS of mock vs raw node:http vs aimock, ${oneShape} (a fresh process per sample)`,
      ...fresh,
      variants: variants((s, i) => peak(s, () => read(s, one[i]!))),
      rows: (r) => [
        lowerIsBetterRow(`mock peak RSS/raw node:http, ${oneShape}`, 'MiB', PEAK_RSS_GOAL, r.mock!, r.raw!),
        lowerIsBetterRow(`aimock peak RSS/raw node:http, ${oneShape}`, 'MiB', 0, r.aimock!, r.raw!),
      ],
    },
    {
      title: `peak RSS of mock vs raw node:http vs aimock, ${manyShape} (a fresh process per sample)`,
      ...fresh,
      variants: variants((s, i) =>
        peak(s, () => Promise.all(Array.from({ length: sizes.memoryStreams }, () => read(s, many[i]!)))),
      ),
      rows: (r) => [
        lowerIsBetterRow(`mock peak RSS/raw node:http, ${manyShape}`, 'MiB', PEAK_RSS_GOAL, r.mock!, r.raw!),
        lowerIsBetterRow(`aimock peak RSS/raw node:http, ${manyShape}`, 'MiB', 0, r.aimock!, r.raw!),
      ],
    },
    {
      title: `RSS growth behind a slow reader (one chunk, then ${pause} paused), ${oneShape} (a fresh process per sample)`,
      ...fresh,
      variants: variants(async (s, i) => {
        const before = statusBytes(s.child.pid, 'VmRSS') ?? 0;
        let peakBytes = 0;
        await read(s, one[i]!, async () => {
          const meter = new PeakMeter(s.child.pid);
          await sleep(sizes.slowPauseMs);
          peakBytes = meter.stop();
        });
        return Math.max((peakBytes - before) / MIB, GROWTH_FLOOR_MIB);
      }),
      rows: (r) => [
        budgetRow(
          `mock RSS growth behind a slow reader vs ${SLOW_READER_BUDGET_MIB} MiB budget, ${oneShape}`,
          'MiB',
          1,
          r.mock!,
          SLOW_READER_BUDGET_MIB,
        ),
        lowerIsBetterRow(
          `mock/raw node:http RSS growth behind a slow reader, ${oneShape}`,
          'MiB',
          0,
          r.mock!,
          r.raw!,
        ),
        lowerIsBetterRow(
          `aimock/raw node:http RSS growth behind a slow reader, ${oneShape}`,
          'MiB',
          0,
          r.aimock!,
          r.raw!,
        ),
      ],
    },
  ];
  const method = new PeakMeter(process.pid);
  method.stop();
  return {
    comparisons,
    summary: `server processes idle after start: ${idle.join(', ')}; peaks read by ${method.method}`,
  };
}
