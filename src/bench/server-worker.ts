import { parentPort, workerData } from 'node:worker_threads';
import { hostBenchServers, type WorkerData, type WorkerMessage } from './servers.js';

// The worker thread of startBenchServers: hosts the servers, reports their URLs, closes
// them when told to.
const port = parentPort;
if (port === null) throw new Error('server-worker.js runs as a worker thread of the bench');
const post = (m: WorkerMessage) => port.postMessage(m);
const describe = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e));

try {
  const { sizes, extra } = workerData as WorkerData;
  const hosted = await hostBenchServers(sizes, extra);
  port.once('message', () => {
    hosted.close().then(
      () => post({ kind: 'closed' }),
      (e: unknown) => post({ kind: 'failed', error: describe(e) }),
    );
  });
  post({ kind: 'ready', urls: hosted.urls });
} catch (e) {
  post({ kind: 'failed', error: describe(e) });
}
