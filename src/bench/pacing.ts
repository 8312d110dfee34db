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
import { type BenchRow, budgetRow, comparisonRow, tidy, withNote } from './rows.js';
import { median } from './stats.js';

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

/** How well arrivals follow a schedule (scheduleFit); a type, so it passes as a variant's samples. */
export type ScheduleFit = {
  /** The mean absolute lag or lead of a frame, ms. */
  readonly errorMs: number;
  /** The frame rate reached over the scheduled one; 0 when every frame came at once (none measured). */
  readonly rate: number;
  /**
   * How close the rate came to the schedule's, 1 at best: the smaller of the rate and its
   * inverse, so 10x too fast misses as 10x too slow does, and frames all at once score 0.
   */
  readonly closeness: number;
};

/**
 * How well arrivals follow a schedule (cumulative ms of each frame), both taken from the
 * first frame on.
 */
export function scheduleFit(arrivals: readonly number[], scheduled: readonly number[]): ScheduleFit {
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
  const errorMs = sum / arrivals.length;
  // Frames that arrive in one chunk share a timestamp: their rate is beyond measuring, and no
  // schedule that spreads them is followed by sending them at once.
  if (took <= 0) return { errorMs, rate: 0, closeness: planned <= 0 ? 1 : 0 };
  const rate = planned / took;
  return { errorMs, rate, closeness: rate <= 0 ? 0 : Math.min(rate, 1 / rate) };
}

/**
 * The frames/s row of a paced stream: the median rate reached against the scheduled one, its
 * ratio the median closeness of the rounds (ScheduleFit.closeness), so the goal reads "within
 * 1 - goal of the schedule's rate" either way.
 */
export function pacedRateRow(
  name: string,
  goal: number,
  fits: { readonly rate: readonly number[]; readonly closeness: readonly number[] },
): BenchRow {
  const scheduled = 1000 / PACING_MEAN_MS;
  const row = comparisonRow(
    name,
    'frames/s',
    goal,
    fits.rate.map((r) => r * scheduled),
    fits.rate.map(() => scheduled),
  );
  const atOnce = fits.rate.filter((r) => r === 0).length;
  const note =
    atOnce === 0
      ? undefined
      : `in ${atOnce} of ${fits.rate.length} rounds every frame arrived at once (no rate measured, closeness 0)`;
  return withNote({ ...row, ratio: tidy(median(fits.closeness)) }, note);
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
      const fits = (name: string) => ({ rate: s[`${name}.rate`]!, closeness: s[`${name}.closeness`]! });
      return [
        budgetRow(
          `mock pacing error vs ${PACING_ERROR_BUDGET_MS} ms, ${shape}`,
          'ms',
          1,
          s['mock.errorMs']!,
          PACING_ERROR_BUDGET_MS,
        ),
        pacedRateRow(`mock paced frames/s vs schedule, ${shape}`, PACING_RATE_GOAL, fits('mock')),
        budgetRow(
          `aimock pacing error vs ${PACING_ERROR_BUDGET_MS} ms, ${shape}`,
          'ms',
          0,
          s['aimock.errorMs']!,
          PACING_ERROR_BUDGET_MS,
        ),
        pacedRateRow(`aimock paced frames/s vs schedule, ${shape}`, 0, fits('aimock')),
      ];
    },
  };
}
