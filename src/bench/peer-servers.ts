import { LLMock } from '@copilotkit/aimock';
import { type Reply, startMockMessagesService } from '../mocks/messages/index.js';
import type { MessageRequest } from '../protocol/messages/index.js';
import { type BenchServer, type RawRoute, startRawSseServer } from './raw-server.js';
import { type BenchStream, fixedTextStream, lazyTextBatches, PIECE_WIDTH, sseBatches } from './streams.js';

/** Sizes of the rows that compare the mock with its peer and measure it under load. */
export interface PeerSizes {
  /** text_delta frames of the long stream (the issue: 100,000). */
  oneDeltas: number;
  /** Streams read at once, and the deltas of each. */
  manyStreams: number;
  manyDeltas: number;
  /** Short streams: deltas of each, readers at once, requests per sample. */
  shortDeltas: number;
  shortConcurrency: number;
  shortRequests: number;
  /** Peak RSS under many streams: streams at once and deltas of each (the issue: 100 x 10,000). */
  memoryStreams: number;
  memoryDeltas: number;
  /** How long the slow reader pauses after its first chunk (the issue: 2 s). */
  slowPauseMs: number;
  /** Length of the scripted pacing schedule in ms (the issue: a second). */
  pacedMs: number;
}

/** The streams, each picked by the user's text of the request (see benchBody). */
export const PEER_PROMPTS = {
  one: 'bench-one',
  many: 'bench-many',
  short: 'bench-short',
  memory: 'bench-memory',
  paced: 'bench-paced',
} as const;
export type PeerStreamName = keyof typeof PEER_PROMPTS;

/** The delays of the pacing schedule repeat this pattern: 0.25 ms a frame on average, 4x what one timer per frame allows. */
export const PACING_PATTERN_MS: readonly number[] = [0, 0.1, 0.2, 0.3, 0.4, 0.5];
export const PACING_MEAN_MS = PACING_PATTERN_MS.reduce((a, b) => a + b, 0) / PACING_PATTERN_MS.length;

/** Entry i is the delay before frame i: 0 before message_start, then the pattern. */
export function pacingSchedule(frames: number): number[] {
  return Array.from({ length: frames }, (_, i) =>
    i === 0 ? 0 : PACING_PATTERN_MS[(i - 1) % PACING_PATTERN_MS.length]!,
  );
}

export type PeerStreams = Record<PeerStreamName, BenchStream & { text: string }>;

/** The streams of the peer rows; the paced one lasts `pacedMs` on schedule. */
export function peerStreams(sizes: PeerSizes): PeerStreams {
  // fixedTextStream(n) has n + 5 frames; the schedule's sum is (frames - 1) * mean.
  const pacedDeltas = Math.max(1, Math.round(sizes.pacedMs / PACING_MEAN_MS) - 4);
  return {
    one: fixedTextStream(sizes.oneDeltas),
    many: fixedTextStream(sizes.manyDeltas),
    short: fixedTextStream(sizes.shortDeltas),
    memory: fixedTextStream(sizes.memoryDeltas),
    paced: fixedTextStream(pacedDeltas),
  };
}

/** The servers a peer row can read from. */
export const PEER_KINDS = ['mock-1', 'mock-64', 'aimock', 'raw-1'] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

/** Base URL per kind; the stream is chosen by the request's text (raw: by path, see peerTarget). */
export type PeerUrls = Record<PeerKind, string>;

/** Every kind a server can be started as; raw-64 (64 frames per write, as the mock writes) serves the memory rows. */
export type ServerKind = PeerKind | 'raw-64';

/** Where to read stream `name` from a server of `kind` at `url` (raw serves each stream at a path). */
export function streamUrl(url: string, kind: ServerKind, name: PeerStreamName): string {
  return kind.startsWith('raw') ? `${url}/${name}` : url;
}

export function peerTarget(urls: PeerUrls, kind: PeerKind, name: PeerStreamName): string {
  return streamUrl(urls[kind], kind, name);
}

function promptOf(request: MessageRequest): string {
  const first = request.messages[0]?.content;
  return typeof first === 'string' ? first : '';
}

/**
 * The mock: a new message object per request, so its stream cache cannot help (aimock
 * rebuilds every stream too); the paced stream carries its delay schedule.
 */
async function startMock(streams: PeerStreams, framesPerWrite: number): Promise<BenchServer> {
  const byPrompt = new Map<string, () => Reply>();
  for (const [name, stream] of Object.entries(streams) as [PeerStreamName, BenchStream][]) {
    const faults = name === 'paced' ? { delayMs: pacingSchedule(stream.frames) } : undefined;
    byPrompt.set(PEER_PROMPTS[name], () => ({
      kind: 'message',
      message: { ...stream.message },
      splits: stream.splits,
      ...(faults && { faults }),
    }));
  }
  const service = await startMockMessagesService({
    framesPerWrite,
    journalLimit: 0,
    scenario: (request) => {
      const reply = byPrompt.get(promptOf(request));
      if (!reply)
        return { kind: 'error', status: 404, message: `no bench stream for "${promptOf(request)}"` };
      return reply();
    },
  });
  return service;
}

/** Deltas of aimock's paced stream: a quarter of the mock's. */
export function aimockPacedDeltas(pacedText: string): number {
  return Math.max(1, Math.round(pacedText.length / PIECE_WIDTH / 4));
}

/**
 * aimock serving the same text, cut every PIECE_WIDTH characters, with zero latency; the
 * paced stream with its mean delay per frame (aimock has a fixed latency, no schedule).
 */
async function startAimock(streams: PeerStreams): Promise<BenchServer> {
  const mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent', journalMaxEntries: 0 });
  for (const [name, stream] of Object.entries(streams) as [PeerStreamName, { text: string }][]) {
    const paced = name === 'paced';
    // A timer per frame makes aimock's paced stream ~4x longer than scheduled: a quarter of it shows as much.
    const content = paced ? stream.text.slice(0, PIECE_WIDTH * aimockPacedDeltas(stream.text)) : stream.text;
    mock.onMessage(
      PEER_PROMPTS[name],
      { content },
      { chunkSize: PIECE_WIDTH, latency: paced ? PACING_MEAN_MS : 0 },
    );
  }
  const url = await mock.start();
  return { url: url.replace(/\/$/, ''), close: () => mock.stop().then(() => undefined) };
}

/**
 * Raw node:http writing the same bytes as the mock: pre-encoded one frame per write, as
 * aimock writes (raw-1, the throughput baseline); or encoded per request, 64 frames per
 * write as the mock writes, holding nothing between requests (raw-64, the memory
 * baseline: a server holding every stream encoded would weigh more than the mock).
 */
function startRaw(streams: PeerStreams, framesPerWrite: number): Promise<BenchServer> {
  const routes: Record<string, RawRoute> = {};
  for (const [name, stream] of Object.entries(streams) as [PeerStreamName, BenchStream][]) {
    if (name === 'paced') continue;
    routes[`/${name}`] =
      framesPerWrite === 1
        ? sseBatches(stream, 1).map((b) => Buffer.from(b))
        : () => lazyTextBatches(stream, framesPerWrite);
  }
  return startRawSseServer(routes);
}

export function startPeer(kind: ServerKind, streams: PeerStreams): Promise<BenchServer> {
  switch (kind) {
    case 'mock-1':
      return startMock(streams, 1);
    case 'mock-64':
      return startMock(streams, 64);
    case 'aimock':
      return startAimock(streams);
    case 'raw-1':
      return startRaw(streams, 1);
    case 'raw-64':
      return startRaw(streams, 64);
  }
}

/** Every peer server, started in this thread. */
export async function hostPeerServers(sizes: PeerSizes): Promise<{ urls: PeerUrls; close(): Promise<void> }> {
  const streams = peerStreams(sizes);
  const started: BenchServer[] = [];
  const urls: Partial<PeerUrls> = {};
  try {
    for (const kind of PEER_KINDS) {
      const server = await startPeer(kind, streams);
      started.push(server);
      urls[kind] = server.url;
    }
  } catch (e) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw e;
  }
  return {
    urls: urls as PeerUrls,
    close: async () => {
      await Promise.all(started.map((s) => s.close()));
    },
  };
}
