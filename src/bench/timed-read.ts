import { request } from 'node:http';
import { BenchMismatchError } from './comparisons.js';
import type { PeerStreamName } from './peer-servers.js';
import { BENCH_HEADERS } from './request.js';

export interface Read {
  /** ms from the end of the request to the first body byte. */
  firstByteMs: number;
  bytes: number;
}

/**
 * POST the bench request for `body` and read the whole stream; `onFirst` runs at the first
 * body chunk with the response paused, and reading resumes when it settles.
 */
export function readStream(url: string, body: string, onFirst?: () => Promise<void>): Promise<Read> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/messages`, {
      method: 'POST',
      headers: { ...BENCH_HEADERS, 'content-length': Buffer.byteLength(body) },
    });
    let sent = 0;
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${url}/v1/messages answered HTTP ${res.statusCode}, expected 200`));
        return;
      }
      let bytes = 0;
      let firstByteMs = -1;
      res.on('data', (chunk: Buffer) => {
        if (firstByteMs < 0) {
          firstByteMs = performance.now() - sent;
          if (onFirst) {
            res.pause();
            onFirst().then(() => res.resume(), reject);
          }
        }
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ firstByteMs, bytes }));
      res.on('error', reject);
    });
    sent = performance.now();
    req.end(body);
  });
}

export interface StreamAt {
  url: string;
  body: string;
  bytes: number;
}

/** A stream probed once: its request body and byte count, for any fresh process of the same kind. */
export interface Probed extends StreamAt {
  name: PeerStreamName;
}

export function checked(name: string, stream: StreamAt, read: Read): Read {
  if (read.bytes !== stream.bytes) {
    throw new BenchMismatchError(
      `${name}: expected a body of ${stream.bytes} bytes as probed, got ${read.bytes}`,
    );
  }
  return read;
}
