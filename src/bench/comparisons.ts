import { type Consume, officialSdk, officialSdk0, referenceClient } from './consumers.js';
import { drainStream } from './drain.js';
import type { Variant } from './interleave.js';
import { parserBaseline } from './parser-baseline.js';
import { type BenchRow, comparisonRow, targetRow } from './rows.js';
import type { BenchStreams, BenchUrls, StreamSizes } from './servers.js';
import { type BenchStream, contentKey, sseBatches, sseByteLength } from './streams.js';

/** Two things measured side by side: variants run interleaved, then turned into rows. */
export interface Comparison {
  title: string;
  /** At most this many measured rounds (a slow peer), never fewer than 5 unless the run asks for fewer. */
  rounds?: number;
  /** At most this many warm-up rounds (0 where every sample starts a fresh process). */
  warmupRounds?: number;
  variants: Variant[];
  rows(samples: Readonly<Record<string, number[]>>): BenchRow[];
}

/** A variant measured something else than it was meant to (wrong bytes, wrong message). */
export class BenchMismatchError extends Error {
  override name = 'BenchMismatchError';
}

const FRAMES_PER_S = 'frames/s';
/** The mock's absolute aim on one stream without scripted timing. */
export const MOCK_TARGET_FRAMES_PER_S = 1_000_000;
/** Streams read one after the other per sample of a batched server. */
const BATCHED_STREAMS_PER_SAMPLE = 4;

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/**
 * frames/s of a server, read by the minimal reader, over `streams` streams one after the
 * other (a sample of one short stream is mostly noise); every body must be exactly the
 * expected bytes.
 */
function serverVariant(
  name: string,
  baseUrl: string,
  frames: number,
  expectedBytes: number,
  streams: number,
): Variant {
  return {
    name,
    run: async () => {
      const start = performance.now();
      for (let i = 0; i < streams; i++) {
        const bytes = await drainStream(baseUrl);
        if (bytes !== expectedBytes) {
          throw new BenchMismatchError(
            `${name}: expected a body of ${expectedBytes} bytes (the same frames as the other side), got ${bytes}`,
          );
        }
      }
      return (frames * streams) / seconds(start);
    },
  };
}

/** frames/s of a consumer reading a whole stream; its final content must be the streamed message's. */
function consumerVariant(name: string, consume: Consume, stream: BenchStream): Variant {
  const expected = contentKey(stream.message.content);
  return {
    name,
    run: async () => {
      const start = performance.now();
      const message = await consume();
      const elapsed = seconds(start);
      const got = contentKey(message.content);
      if (got !== expected) {
        throw new BenchMismatchError(
          `${name}: the final content differs from the streamed message (${got.length} vs ${expected.length} characters of JSON)`,
        );
      }
      return stream.frames / elapsed;
    },
  };
}

/** The mock against raw node:http writing the same frames with the same batching. */
function serverComparison(options: {
  label: string;
  framesPerWrite: number;
  mockUrl: string;
  rawUrl: string;
  stream: BenchStream;
  withTarget: boolean;
  /** How the mock gets its reply, when that matters for the row's name. */
  reply?: string;
}): Comparison {
  const { label, framesPerWrite, mockUrl, rawUrl, stream, withTarget, reply } = options;
  const bytes = sseByteLength(sseBatches(stream, framesPerWrite));
  // Batched writes serve a stream in a few tens of ms: a sample takes several.
  const streams = framesPerWrite > 1 ? BATCHED_STREAMS_PER_SAMPLE : 1;
  const per = framesPerWrite === 1 ? '1 frame per write' : `${framesPerWrite} frames per write`;
  const shape = `${label}, ${per}${reply === undefined ? '' : `, ${reply}`}`;
  return {
    title: `mock vs raw node:http, ${shape}`,
    variants: [
      serverVariant('mock', mockUrl, stream.frames, bytes, streams),
      serverVariant('raw', rawUrl, stream.frames, bytes, streams),
    ],
    rows: (s) => [
      comparisonRow(`mock/raw SSE, ${shape}`, FRAMES_PER_S, 0.9, s.mock!, s.raw!),
      ...(withTarget
        ? [
            targetRow(
              `mock SSE vs 1,000,000 frames/s, ${shape}`,
              FRAMES_PER_S,
              1,
              s.mock!,
              MOCK_TARGET_FRAMES_PER_S,
            ),
          ]
        : []),
    ],
  };
}

/** The issue's goal for the reference client against the official SDK's MessageStream. */
export const SDK_GOAL = 1.8;

/**
 * The reference client against the parser baseline and the official SDK (newest 1.x,
 * and 0.x through its npm alias), on one stream from the raw server.
 */
function clientComparison(label: string, url: string, stream: BenchStream): Comparison {
  return {
    title: `client vs parser baseline vs official SDK 1.x and 0.x, ${label}`,
    variants: [
      consumerVariant('client', referenceClient(url), stream),
      consumerVariant('baseline', parserBaseline(url), stream),
      consumerVariant('sdk', officialSdk(url), stream),
      consumerVariant('sdk0', officialSdk0(url), stream),
    ],
    rows: (s) => [
      comparisonRow(`client/parser baseline, ${label}`, FRAMES_PER_S, 0.8, s.client!, s.baseline!),
      comparisonRow(`client/official SDK, ${label}`, FRAMES_PER_S, SDK_GOAL, s.client!, s.sdk!),
      comparisonRow(`client/official SDK 0.x, ${label}`, FRAMES_PER_S, SDK_GOAL, s.client!, s.sdk0!),
      // Context: the SDKs against the 30-line chain every client could be.
      comparisonRow(`official SDK/parser baseline, ${label}`, FRAMES_PER_S, 0, s.sdk!, s.baseline!),
      comparisonRow(`official SDK 0.x/parser baseline, ${label}`, FRAMES_PER_S, 0, s.sdk0!, s.baseline!),
    ],
  };
}

/** Every comparison of part 1, in the order they run. */
export function benchComparisons(sizes: StreamSizes, streams: BenchStreams, urls: BenchUrls): Comparison[] {
  const text = `${sizes.textDeltas} text deltas`;
  const tool = `${sizes.jsonFragments} input_json_delta fragments`;
  const batched = {
    label: text,
    framesPerWrite: sizes.framesPerWrite,
    rawUrl: urls.rawBatched,
    stream: streams.text,
  };
  return [
    serverComparison({ ...batched, mockUrl: urls.mockBatched, withTarget: true }),
    serverComparison({
      label: text,
      framesPerWrite: 1,
      mockUrl: urls.mockPerFrame,
      rawUrl: urls.rawPerFrame,
      stream: streams.text,
      withTarget: false,
    }),
    serverComparison({
      ...batched,
      mockUrl: urls.mockFresh,
      withTarget: true,
      reply: 'new message per request',
    }),
    clientComparison(text, urls.rawBatched, streams.text),
    clientComparison(tool, urls.rawTool, streams.tool),
  ];
}
