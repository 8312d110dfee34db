import { decodeFrames } from '../protocol/sse/index.js';
import { BenchMismatchError, type Comparison } from './comparisons.js';
import { drainStream } from './drain.js';
import type { Variant } from './interleave.js';
import {
  PEER_PROMPTS,
  type PeerKind,
  type PeerSizes,
  type PeerStreamName,
  type PeerUrls,
  peerStreams,
  peerTarget,
} from './peer-servers.js';
import { benchBody } from './request.js';
import { comparisonRow, lowerIsBetterRow } from './rows.js';
import { checked, readStream } from './timed-read.js';

/** The goals: the mock against aimock, one write per frame and frames batched. */
export const AIMOCK_GOAL_PER_FRAME = 2;
export const AIMOCK_GOAL_BATCHED = 8;
/** Rounds of a peer comparison at full size (aimock takes ~0.5 s per 100,000 frames). */
export const PEER_ROUNDS = 7;
/** Batched writes serve 100,000 frames in ~50 ms: a sample reads several streams. */
const BATCHED_STREAMS_PER_SAMPLE = 4;

const FRAMES_PER_S = 'frames/s';
const REQUESTS_PER_S = 'requests/s';

/** A server to read a stream from, and the body length that proves it sent the whole stream. */
interface Target {
  url: string;
  body: string;
  bytes: number;
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/**
 * Read the stream once and check it has exactly `deltas` content_block_delta frames
 * ending in message_stop: aimock's bytes are not the mock's, so each server's own body
 * length is taken here and every later read must match it.
 */
export async function probeTarget(url: string, prompt: string, deltas: number): Promise<Target> {
  const body = benchBody(prompt);
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'bench-key',
      'anthropic-version': '2023-06-01',
    },
    body,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) {
    throw new BenchMismatchError(`${url}: "${prompt}" answered HTTP ${res.status}, expected a 200 stream`);
  }
  const { frames } = decodeFrames([bytes]);
  const got = frames.filter((f) => f.event === 'content_block_delta').length;
  if (got !== deltas || frames.at(-1)?.event !== 'message_stop') {
    throw new BenchMismatchError(
      `${url}: "${prompt}" expected ${deltas} text deltas ending in message_stop, got ${got} ending in ${frames.at(-1)?.event}`,
    );
  }
  return { url, body, bytes: bytes.length };
}

async function readChecked(name: string, target: Target): Promise<void> {
  const bytes = await drainStream(target.url, target.body);
  if (bytes !== target.bytes) {
    throw new BenchMismatchError(`${name}: expected a body of ${target.bytes} bytes as probed, got ${bytes}`);
  }
}

/** frames/s of `streams` streams read at once, `times` times one after the other. */
function streamsVariant(
  name: string,
  target: Target,
  frames: number,
  streams: number,
  times: number,
): Variant {
  return {
    name,
    run: async () => {
      const start = performance.now();
      for (let t = 0; t < times; t++) {
        await Promise.all(Array.from({ length: streams }, () => readChecked(name, target)));
      }
      return (frames * streams * times) / seconds(start);
    },
  };
}

/** requests/s of `requests` short streams read by `concurrency` readers at once. */
function requestsVariant(name: string, target: Target, concurrency: number, requests: number): Variant {
  return {
    name,
    run: async () => {
      let next = 0;
      const reader = async () => {
        while (next < requests) {
          next++;
          await readChecked(name, target);
        }
      };
      const start = performance.now();
      await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, reader));
      return requests / seconds(start);
    },
  };
}

/** The variants of every peer row, each reading from its own server. */
const CONTENDERS: readonly { kind: PeerKind; variant: string }[] = [
  { kind: 'mock-64', variant: 'mock 64/write' },
  { kind: 'mock-1', variant: 'mock 1/write' },
  { kind: 'aimock', variant: 'aimock' },
  { kind: 'raw-1', variant: 'raw 1/write' },
];

async function targets(
  urls: PeerUrls,
  name: PeerStreamName,
  deltas: number,
): Promise<Record<PeerKind, Target>> {
  const out: Partial<Record<PeerKind, Target>> = {};
  for (const { kind } of CONTENDERS)
    out[kind] = await probeTarget(peerTarget(urls, kind, name), PEER_PROMPTS[name], deltas);
  return out as Record<PeerKind, Target>;
}

function aimockRows(shape: string, unit: string, s: Readonly<Record<string, number[]>>, batchedGoal: number) {
  return [
    comparisonRow(
      `mock/aimock SSE, ${shape}, 1 frame per write`,
      unit,
      AIMOCK_GOAL_PER_FRAME,
      s['mock 1/write']!,
      s.aimock!,
    ),
    comparisonRow(
      `mock/aimock SSE, ${shape}, 64 frames per write`,
      unit,
      batchedGoal,
      s['mock 64/write']!,
      s.aimock!,
    ),
    // Context: where aimock stands against a server that only writes (both one write per frame).
    comparisonRow(
      `aimock/raw node:http SSE, ${shape}, 1 frame per write`,
      unit,
      0,
      s.aimock!,
      s['raw 1/write']!,
    ),
  ];
}

/** The goal: the mock's first byte of a long stream at most 2x raw's. */
export const TTFB_GOAL = 0.5;

/** ms to the first body byte of the long stream; the rest is read and checked. */
function firstByteVariant(name: string, target: Target): Variant {
  return {
    name,
    run: async () => {
      const read = checked(name, target, await readStream(target.url, target.body));
      return read.firstByteMs;
    },
  };
}

/**
 * The mock against aimock serving the same text deltas with zero latency, and both
 * against raw node:http: one long stream, many streams at once, short streams by many
 * readers. Probes every server first (right number of deltas, whole stream).
 */
export async function peerComparisons(sizes: PeerSizes, urls: PeerUrls): Promise<Comparison[]> {
  const streams = peerStreams(sizes);
  const one = await targets(urls, 'one', sizes.oneDeltas);
  const many = await targets(urls, 'many', sizes.manyDeltas);
  const short = await targets(urls, 'short', sizes.shortDeltas);
  const oneShape = `${sizes.oneDeltas} text deltas`;
  const manyShape = `${sizes.manyStreams} x ${sizes.manyDeltas} text deltas at once`;
  const shortShape = `${sizes.shortDeltas}-delta streams, ${sizes.shortConcurrency} at once`;
  return [
    {
      title: `mock vs aimock vs raw node:http, ${oneShape}`,
      rounds: PEER_ROUNDS,
      variants: CONTENDERS.map(({ kind, variant }) =>
        streamsVariant(
          variant,
          one[kind],
          streams.one.frames,
          1,
          kind === 'mock-64' ? BATCHED_STREAMS_PER_SAMPLE : 1,
        ),
      ),
      rows: (s) => aimockRows(oneShape, FRAMES_PER_S, s, AIMOCK_GOAL_BATCHED),
    },
    {
      title: `mock vs aimock vs raw node:http, ${manyShape}`,
      rounds: PEER_ROUNDS,
      variants: CONTENDERS.map(({ kind, variant }) =>
        streamsVariant(variant, many[kind], streams.many.frames, sizes.manyStreams, 1),
      ),
      rows: (s) => aimockRows(manyShape, FRAMES_PER_S, s, AIMOCK_GOAL_BATCHED),
    },
    {
      title: `time to first byte of mock vs raw node:http vs aimock, ${oneShape}`,
      rounds: PEER_ROUNDS,
      variants: [
        firstByteVariant('mock', one['mock-64']),
        firstByteVariant('raw', one['raw-1']),
        firstByteVariant('aimock', one.aimock),
      ],
      rows: (s) => [
        lowerIsBetterRow(
          `mock time to first byte/raw node:http, ${oneShape}`,
          'ms',
          TTFB_GOAL,
          s.mock!,
          s.raw!,
        ),
        lowerIsBetterRow(`aimock time to first byte/raw node:http, ${oneShape}`, 'ms', 0, s.aimock!, s.raw!),
      ],
    },
    {
      title: `mock vs aimock vs raw node:http, ${shortShape}`,
      rounds: PEER_ROUNDS,
      variants: CONTENDERS.map(({ kind, variant }) =>
        requestsVariant(variant, short[kind], sizes.shortConcurrency, sizes.shortRequests),
      ),
      // A short stream is one write whatever the batching: the per-frame goal applies to both.
      rows: (s) => aimockRows(shortShape, REQUESTS_PER_S, s, AIMOCK_GOAL_PER_FRAME),
    },
  ];
}
