import { request } from 'node:http';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Each `data` event of the response, as it arrived, with ms since the response headers. */
  chunks: { atMs: number; bytes: Buffer }[];
  /** How the body ended: cleanly, or cut (the socket closed before the end). */
  end: 'complete' | 'cut';
}

/**
 * POST a JSON body with a raw node:http client (Nagle off, no agent, nothing buffered)
 * and keep every data event of the response with its arrival time: what a recording or a
 * replay looks like to a client, boundary by boundary.
 */
export function postRaw(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawReply> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/messages`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'x-api-key': 'test-key-0123456789',
          'anthropic-version': '2023-06-01',
          ...headers,
        },
      },
      (res) => {
        const t0 = performance.now();
        const chunks: RawReply['chunks'] = [];
        let done = false;
        const finish = (end: RawReply['end']) => {
          if (done) return;
          done = true;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, end });
        };
        res.on('data', (b: Buffer) => chunks.push({ atMs: performance.now() - t0, bytes: b }));
        res.on('end', () => finish('complete'));
        res.on('error', () => finish('cut'));
        res.on('close', () => finish(res.complete ? 'complete' : 'cut'));
      },
    );
    req.on('socket', (s) => s.setNoDelay(true));
    req.on('error', reject);
    req.end(payload);
  });
}
