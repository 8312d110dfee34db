import { request } from 'node:http';
import { BENCH_HEADERS, BENCH_REQUEST } from './request.js';

const BODY = JSON.stringify(BENCH_REQUEST);

/**
 * The minimal reader: POST the bench request to `${baseUrl}/v1/messages` and throw the
 * body away, counting its bytes. It does as little per byte as a reader can, so that a
 * comparison of two servers measures the servers. Resolves with the body's byte count.
 * `body` is the request (default: the bench request; see benchBody).
 */
export function drainStream(baseUrl: string, body: string = BODY): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { ...BENCH_HEADERS, 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${baseUrl}/v1/messages answered HTTP ${res.statusCode}, expected 200`));
        return;
      }
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
    req.end(body);
  });
}
