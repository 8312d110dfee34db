import { parentPort, workerData } from 'node:worker_threads';
import { hostProxyBenchServer, type ProxyBenchRole } from './proxy-servers.js';

// The worker thread of startProxyBenchServer: hosts one server, reports its URL, closes it when told to.
const port = parentPort;
if (port === null) throw new Error('proxy-worker.js runs as a worker thread of the bench');
const describe = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e));

try {
  const hosted = await hostProxyBenchServer(workerData as ProxyBenchRole);
  port.once('message', () => {
    hosted.close().then(
      () => port.postMessage({ kind: 'closed' }),
      (e: unknown) => port.postMessage({ kind: 'failed', error: describe(e) }),
    );
  });
  port.postMessage({ kind: 'ready', url: hosted.url });
} catch (e) {
  port.postMessage({ kind: 'failed', error: describe(e) });
}
