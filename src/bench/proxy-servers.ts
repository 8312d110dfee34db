import { Worker } from 'node:worker_threads';
import { type Reply, startMockMessagesService } from '../mocks/messages/index.js';
import { startRecordingProxy } from '../recording/index.js';
import { textStream } from './streams.js';

/** What one hosted server of the proxy bench is: the mock with the text stream, or the recording proxy. */
export type ProxyBenchRole =
  | { kind: 'mock'; textDeltas: number; framesPerWrite: number }
  | { kind: 'proxy'; upstream: string; outDir: string };

export interface HostedUrl {
  readonly url: string;
  close(): Promise<void>;
}

/** Start one server of the proxy bench in this thread. */
export async function hostProxyBenchServer(role: ProxyBenchRole): Promise<HostedUrl> {
  if (role.kind === 'mock') {
    const stream = textStream(role.textDeltas);
    const reply: Reply = { kind: 'message', message: stream.message, splits: stream.splits };
    const service = await startMockMessagesService({
      scenario: () => reply,
      framesPerWrite: role.framesPerWrite,
    });
    return { url: service.url, close: () => service.close() };
  }
  const proxy = await startRecordingProxy({ upstream: role.upstream, outDir: role.outDir });
  return { url: proxy.url, close: () => proxy.close() };
}

type WorkerMessage = { kind: 'ready'; url: string } | { kind: 'closed' } | { kind: 'failed'; error: string };

function nextMessage(worker: Worker): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(() => reject(new Error('the proxy bench worker did not answer in 30 s'))),
      30_000,
    );
    const onMessage = (m: WorkerMessage) => finish(() => resolve(m));
    const onError = (e: Error) => finish(() => reject(e));
    const onExit = (code: number) =>
      finish(() => reject(new Error(`the proxy bench worker exited (code ${code})`)));
    function finish(settle: () => void): void {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      settle();
    }
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/**
 * Start one server of the proxy bench in a worker thread of its own (as the real proxy is a
 * process of its own, it must not share the reader's thread), or inline (tests).
 */
export async function startProxyBenchServer(role: ProxyBenchRole, inline: boolean): Promise<HostedUrl> {
  if (inline) return hostProxyBenchServer(role);
  const worker = new Worker(new URL('./proxy-worker.js', import.meta.url), { workerData: role });
  const ready = await nextMessage(worker).catch(async (e: unknown) => {
    await worker.terminate();
    throw e;
  });
  if (ready.kind !== 'ready') {
    await worker.terminate();
    throw new Error(`the proxy bench worker failed: ${ready.kind === 'failed' ? ready.error : ready.kind}`);
  }
  return {
    url: ready.url,
    close: async () => {
      const answer = nextMessage(worker);
      worker.postMessage('close');
      try {
        const closed = await answer;
        if (closed.kind === 'failed')
          throw new Error(`the proxy bench worker failed to close: ${closed.error}`);
      } finally {
        await worker.terminate();
      }
    },
  };
}
