import { Worker } from 'node:worker_threads';
import { type MockMessagesService, type Reply, startMockMessagesService } from '../mocks/messages/index.js';
import { hostPeerServers, type PeerSizes, type PeerUrls } from './peer-servers.js';
import { type BenchServer, startRawSseServer } from './raw-server.js';
import { type BenchStream, sseBatches, textStream, toolStream } from './streams.js';
import { hostToolServers, type ToolUrls } from './tool-servers.js';

/** The streams of a bench run. */
export interface StreamSizes {
  /** text_delta frames of the text stream. */
  textDeltas: number;
  /** input_json_delta frames of the tool stream. */
  jsonFragments: number;
  /** Frames per write of the batched servers (the mock's default is 64). */
  framesPerWrite: number;
}

export interface BenchStreams {
  text: BenchStream;
  tool: BenchStream;
}

export function benchStreams(sizes: StreamSizes): BenchStreams {
  return { text: textStream(sizes.textDeltas), tool: toolStream(sizes.jsonFragments) };
}

/** Base URLs (append `/v1/messages`), all on 127.0.0.1. */
export interface BenchUrls {
  /** The mock serving the text stream as one reply object returned to every request, framesPerWrite frames per write. */
  mockBatched: string;
  /** The same, one frame per write. */
  mockPerFrame: string;
  /** The mock serving the text stream as a new message object per request (nothing to reuse), framesPerWrite frames per write. */
  mockFresh: string;
  /** Raw node:http writing the text stream as pre-encoded bytes, framesPerWrite frames per write. */
  rawBatched: string;
  /** The same, one frame per write. */
  rawPerFrame: string;
  /** Raw node:http writing the tool stream as pre-encoded bytes, framesPerWrite frames per write. */
  rawTool: string;
  /** The mock, aimock and raw node:http serving the peer rows' streams, when asked for. */
  peers?: PeerUrls;
  /** The SSE tool servers, when asked for. */
  tools?: ToolUrls;
}

/** Servers beyond part 1's, hosted with them. */
export interface ExtraServers {
  peers?: PeerSizes;
  /** The three SSE tool servers (reference, raw echo, MCP SDK). */
  tools?: boolean;
}

export interface HostedServers {
  urls: BenchUrls;
  close(): Promise<void>;
}

function encoded(batches: readonly string[]): Buffer[] {
  return batches.map((b) => Buffer.from(b));
}

/** Start every server of a run in this thread. */
export async function hostBenchServers(sizes: StreamSizes, extra: ExtraServers = {}): Promise<HostedServers> {
  const { text, tool } = benchStreams(sizes);
  const started: (BenchServer | MockMessagesService)[] = [];
  let peers: PeerUrls | undefined;
  let tools: ToolUrls | undefined;
  try {
    const reply: Reply = { kind: 'message', message: text.message, splits: text.splits };
    const mock = async (framesPerWrite: number, scenario: () => Reply) => {
      const service = await startMockMessagesService({ scenario, framesPerWrite });
      started.push(service);
      return service.url;
    };
    const mockBatched = await mock(sizes.framesPerWrite, () => reply);
    const mockPerFrame = await mock(1, () => reply);
    // A shallow copy is a message the mock has never seen: whatever it keeps per reply
    // object cannot help, so this measures building the stream.
    const mockFresh = await mock(sizes.framesPerWrite, () => ({ ...reply, message: { ...text.message } }));
    const raw = await startRawSseServer({
      '/text-batched': encoded(sseBatches(text, sizes.framesPerWrite)),
      '/text-per-frame': encoded(sseBatches(text, 1)),
      '/tool-batched': encoded(sseBatches(tool, sizes.framesPerWrite)),
    });
    started.push(raw);
    if (extra.peers) {
      const hosted = await hostPeerServers(extra.peers);
      started.push({ url: '', close: hosted.close });
      peers = hosted.urls;
    }
    if (extra.tools) {
      const hosted = await hostToolServers();
      started.push({ url: '', close: hosted.close });
      tools = hosted.urls;
    }
    return {
      urls: {
        ...(peers && { peers }),
        ...(tools && { tools }),
        mockBatched,
        mockPerFrame,
        mockFresh,
        rawBatched: `${raw.url}/text-batched`,
        rawPerFrame: `${raw.url}/text-per-frame`,
        rawTool: `${raw.url}/tool-batched`,
      },
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (e) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw e;
  }
}

/** What the server worker is started with. */
export interface WorkerData {
  sizes: StreamSizes;
  extra: ExtraServers;
}

/** Messages between the main thread and the server worker. */
export type WorkerMessage =
  | { kind: 'ready'; urls: BenchUrls }
  | { kind: 'closed' }
  | { kind: 'failed'; error: string };

/** Time allowed to the worker to start or close its servers. */
const WORKER_TIMEOUT_MS = 30_000;

function nextMessage(worker: Worker): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        finish(() => reject(new Error(`the server worker did not answer within ${WORKER_TIMEOUT_MS} ms`))),
      WORKER_TIMEOUT_MS,
    );
    const onMessage = (m: WorkerMessage) => finish(() => resolve(m));
    const onError = (e: Error) => finish(() => reject(e));
    const onExit = (code: number) =>
      finish(() => reject(new Error(`the server worker exited (code ${code}) before answering`)));
    function finish(settle: () => void): void {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      settle();
    }
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/**
 * Start every server of a run. By default they run in a worker thread, so that on two
 * cores the servers and the readers each have a thread of their own and a measurement of
 * one side is not diluted by the other; `inline` keeps them in this thread (tests).
 */
export async function startBenchServers(
  sizes: StreamSizes,
  options: { inline?: boolean; extra?: ExtraServers } = {},
): Promise<HostedServers> {
  const extra = options.extra ?? {};
  if (options.inline) return hostBenchServers(sizes, extra);
  const data: WorkerData = { sizes, extra };
  const worker = new Worker(new URL('./server-worker.js', import.meta.url), { workerData: data });
  let ready: WorkerMessage;
  try {
    ready = await nextMessage(worker);
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  if (ready.kind !== 'ready') {
    await worker.terminate();
    throw new Error(
      `the server worker failed to start: ${ready.kind === 'failed' ? ready.error : ready.kind}`,
    );
  }
  return {
    urls: ready.urls,
    close: async () => {
      const answer = nextMessage(worker);
      worker.postMessage('close');
      try {
        const closed = await answer;
        if (closed.kind === 'failed') throw new Error(`the server worker failed to close: ${closed.error}`);
      } finally {
        await worker.terminate();
      }
    },
  };
}
