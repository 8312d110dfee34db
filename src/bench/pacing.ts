import { request } from 'node:http';
import { BenchMismatchError, type Comparison } from './comparisons.js';
import type { Variant } from './interleave.js';
import { probeTarget } from './peer-comparisons.js';
import {
  aimockPacedDeltas,
  PACING_MEAN_MS,
  PEER_PROMPTS,
  type PeerSizes,
  type PeerUrls,
  pacingSchedule,
  peerStreams,
} from './peer-servers.js';
import { BENCH_HEADERS } from './request.js';
import { budgetRow, comparisonRow } from './rows.js';

/** The issue: a schedule is honoured on average within 1 ms, and not capped at a frame per ms. */
export const PACING_ERROR_BUDGET_MS = 1;
export const PACING_RATE_GOAL = 0.95;
export const PACING_ROUNDS = 5;

/**
 * Counts frame ends in LF-only SSE: a frame ends with a blank line, "\n\n", which a
 * chunk boundary may split. `feed` returns how many frames the chunk completed.
 */
export function frameEndCounter(): { feed(chunk: Uint8Array): number } {
  let lastWasLf = false;
  return {
    feed: (chunk) => {
      let ends = 0;
      for (const byte of chunk) {
        if (byte === 0x0a) {
          if (lastWasLf) ends++;
          lastWasLf = !lastWasLf;
        } else lastWasLf = false;
      }
      return ends;
    },
  };
}

/** ms since the request of each frame's arrival (the chunk that completed it), in order. */
export function frameArrivals(url: string, body: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/messages`, {
      method: 'POST',
      headers: { ...BENCH_HEADERS, 'content-length': Buffer.byteLength(body) },
    });
    const start = performance.now();
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${url}/v1/messages answered HTTP ${res.statusCode}, expected 200`));
        return;
      }
      const arrivals: number[] = [];
      const counter = frameEndCounter();
      res.on('data', (chunk: Buffer) => {
        const at = performance.now() - start;
        for (let n = counter.feed(chunk); n > 0; n--) arrivals.push(at);
      });
      res.on('end', () => resolve(arrivals));
      res.on('error', reject);
    });
    req.end(body);
  });
}

/**
 * How well arrivals follow a schedule (cumulative ms of each frame), both taken from the
 * first frame on: the mean absolute lag or lead of a frame, and the frame rate reached
 * over the scheduled one.
 */
export function scheduleFit(
  arrivals: readonly number[],
  scheduled: readonly number[],
): { errorMs: number; rate: number } {
  if (arrivals.length !== scheduled.length || arrivals.length < 2) {
    throw new BenchMismatchError(
      `expected ${scheduled.length} paced frames (at least 2), got ${arrivals.length}`,
    );
  }
  const a0 = arrivals[0]!;
  const s0 = scheduled[0]!;
  let sum = 0;
  for (let i = 0; i < arrivals.length; i++) sum += Math.abs(arrivals[i]! - a0 - (scheduled[i]! - s0));
  const took = arrivals.at(-1)! - a0;
  const planned = scheduled.at(-1)! - s0;
  return { errorMs: sum / arrivals.length, rate: took <= 0 ? 1 : planned / took };
}

function cumulative(delays: readonly number[]): number[] {
  let t = 0;
  return delays.map((d) => (t += d));
}

/**
 * The mock streaming with a per-frame delay schedule (0.25 ms a frame on average, for
 * `pacedMs`), and aimock with the same mean latency per frame (it has no schedule).
 */
export async function pacingComparison(sizes: PeerSizes, urls: PeerUrls): Promise<Comparison> {
  const paced = peerStreams(sizes).paced;
  const aimockDeltas = aimockPacedDeltas(paced.text);
  const mock = await probeTarget(urls['mock-64'], PEER_PROMPTS.paced, paced.frames - 5);
  const aimock = await probeTarget(urls.aimock, PEER_PROMPTS.paced, aimockDeltas);
  const mockPlan = cumulative(pacingSchedule(paced.frames));
  const aimockPlan = cumulative(Array.from({ length: aimockDeltas + 5 }, () => PACING_MEAN_MS));
  const variant = (name: string, target: typeof mock, plan: number[]): Variant => ({
    name,
    run: async () => scheduleFit(await frameArrivals(target.url, target.body), plan),
  });
  const shape = `${PACING_MEAN_MS} ms a frame on average for ${sizes.pacedMs} ms`;
  return {
    title: `scripted pacing of mock vs aimock, ${shape}`,
    rounds: PACING_ROUNDS,
    variants: [variant('mock', mock, mockPlan), variant('aimock', aimock, aimockPlan)],
    rows: (s) => {
      const rate = (name: string) => s[`${name}.rate`]!.map((r) => r * (1000 / PACING_MEAN_MS));
      const planned = (name: string) => s[`${name}.rate`]!.map(() => 1000 / PACING_MEAN_MS);
      return [
        budgetRow(
          `mock pacing error vs ${PACING_ERROR_BUDGET_MS} ms, ${shape}`,
          'ms',
          1,
          s['mock.errorMs']!,
          PACING_ERROR_BUDGET_MS,
        ),
        comparisonRow(
          `mock paced frames/s vs schedule, ${shape}`,
          'frames/s',
          PACING_RATE_GOAL,
          rate('mock'),
          planned('mock'),
        ),
        budgetRow(
          `aimock pacing error vs ${PACING_ERROR_BUDGET_MS} ms, ${shape}`,
          'ms',
          0,
          s['aimock.errorMs']!,
          PACING_ERROR_BUDGET_MS,
        ),
        comparisonRow(
          `aimock paced frames/s vs schedule, ${shape}`,
          'frames/s',
          0,
          rate('aimock'),
          planned('aimock'),
        ),
      ];
    },
  };
}
