import http from 'node:http';
import https from 'node:https';
import type { PostOutcome } from './channel.js';

/** Connections for POSTs are reused; a stream gets its own connection (agent: false). */
const postAgents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

function moduleFor(url: URL) {
  return url.protocol === 'https:' ? https : http;
}

/**
 * POST a body and wait (bounded) for the whole response. A server that never answers
 * (server-everything for an unknown session) yields `status: undefined` after `timeoutMs`,
 * and the request is destroyed so nothing stays open.
 */
export function post(
  url: URL,
  body: string,
  options: { headers?: Record<string, string>; timeoutMs: number },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = moduleFor(url).request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? postAgents.https : postAgents.http,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        ...options.headers,
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({
        status: undefined,
        body: '',
        contentType: undefined,
        problem: `no response within ${options.timeoutMs} ms`,
      });
    }, options.timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish({
          status: res.statusCode,
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: res.headers['content-type'],
        }),
      );
      res.on('error', () =>
        finish({
          status: res.statusCode,
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: res.headers['content-type'],
        }),
      );
    });
    req.on('error', (e) =>
      finish({ status: undefined, body: '', contentType: undefined, problem: e.message }),
    );
    req.end(body);
  });
}

/** A GET whose response body is read as it arrives (an event stream). */
export function openGet(
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ req: http.ClientRequest; res: http.IncomingMessage } | { problem: string }> {
  return new Promise((resolve) => {
    const req = moduleFor(url).get(url, { agent: false, headers });
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ problem: `no response headers within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve({ req, res });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      resolve({ problem: e.message });
    });
  });
}
