import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import https from 'node:https';
import { clip } from '../../protocol/clip.js';
import { HeldBytes } from '../../protocol/held-line.js';
import { nodeHttp as http } from '../../transports/node-http.js';
import type { PostOutcome } from './channel.js';

/** Connections for POSTs are reused; a stream gets its own connection (agent: false). */
const postAgents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

/** Bytes of a POST's response body read; a body that goes on past it is cut off with its connection. */
export const MAX_POST_BODY_BYTES = 1024 * 1024;

/**
 * The target's `--header`s and the origin they are for. A request elsewhere (an endpoint the
 * server announced on another host) goes without them: a credential is for its server only,
 * as a browser drops Authorization on a redirect to another origin.
 */
export interface TargetHeaders {
  readonly origin: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What a request of the suite sends: a header the call sets itself wins (the target may set none of those). */
function headersFor(
  url: URL,
  own: RequestOptions['headers'],
  target: TargetHeaders | undefined,
): RequestOptions['headers'] {
  if (target === undefined || url.origin !== target.origin) return own;
  return { ...target.headers, ...(own as Record<string, string> | undefined) };
}

function moduleFor(url: URL) {
  return url.protocol === 'https:' ? https : http;
}

/**
 * Start an HTTP request, or say why it cannot be sent. What goes into one can come from the
 * server (an endpoint URL it announced, an event id sent back as Last-Event-ID, a session id):
 * a scheme other than http(s) or a header value Node refuses throws at once, where a request
 * that fails later emits 'error'. Both are the server's doing, reported as a problem.
 */
export function startRequest(
  url: URL,
  options: RequestOptions,
  targetHeaders?: TargetHeaders,
): ClientRequest | { problem: string } {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { problem: `the URL ${clip(url.href, 200)} is not http or https (scheme ${url.protocol})` };
  }
  try {
    return moduleFor(url).request(url, {
      ...options,
      headers: headersFor(url, options.headers, targetHeaders),
    });
  } catch (e) {
    return { problem: `wirecheck could not send the request: ${clip((e as Error).message, 300)}` };
  }
}

/**
 * POST a body and wait (bounded) for the whole response. A server that never answers
 * (server-everything for an unknown session) yields `status: undefined` after `timeoutMs`,
 * and the request is destroyed so nothing stays open. A response body past
 * MAX_POST_BODY_BYTES is cut off there (`problem` says so); one that is still coming when
 * `timeoutMs` ends is cut off too, with what arrived.
 */
export function post(
  url: URL,
  body: string,
  options: { headers?: Record<string, string>; timeoutMs: number; targetHeaders?: TargetHeaders },
): Promise<PostOutcome> {
  const given = options.targetHeaders;
  const withheld =
    given !== undefined && Object.keys(given.headers).length > 0 && url.origin !== given.origin
      ? { headersWithheldFrom: url.origin }
      : {};
  return new Promise((done) => {
    const resolve = (outcome: PostOutcome) => done({ ...outcome, ...withheld });
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = startRequest(
      url,
      {
        method: 'POST',
        agent: url.protocol === 'https:' ? postAgents.https : postAgents.http,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          ...options.headers,
        },
      },
      options.targetHeaders,
    );
    if (!('on' in req)) {
      resolve({ status: undefined, body: '', contentType: undefined, problem: req.problem });
      return;
    }
    let partial: { status: number | undefined; held: HeldBytes; contentType: string | undefined } | undefined;
    const timer = setTimeout(() => {
      req.destroy();
      if (partial !== undefined) {
        finish({
          status: partial.status,
          body: partial.held.text(),
          contentType: partial.contentType,
          problem: `the response body was still coming after ${options.timeoutMs} ms and was cut off`,
        });
        return;
      }
      finish({
        status: undefined,
        body: '',
        contentType: undefined,
        problem: `no response within ${options.timeoutMs} ms`,
        timedOut: true,
      });
    }, options.timeoutMs);
    req.on('response', (res) => {
      const held = new HeldBytes();
      let bytes = 0;
      partial = { status: res.statusCode, held, contentType: res.headers['content-type'] };
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes <= MAX_POST_BODY_BYTES) {
          held.add(c, false);
          return;
        }
        req.destroy();
        finish({
          status: res.statusCode,
          body: held.text(),
          contentType: res.headers['content-type'],
          problem: `the response body went past the ${MAX_POST_BODY_BYTES}-byte limit of a POST's response and was cut off`,
        });
      });
      res.on('end', () =>
        finish({
          status: res.statusCode,
          body: held.text(),
          contentType: res.headers['content-type'],
        }),
      );
      res.on('error', () =>
        finish({
          status: res.statusCode,
          body: held.text(),
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
  targetHeaders?: TargetHeaders,
): Promise<{ req: ClientRequest; res: IncomingMessage } | { problem: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const req = startRequest(url, { method: 'GET', agent: false, headers }, targetHeaders);
    if (!('on' in req)) {
      resolve({ problem: req.problem, timedOut: false });
      return;
    }
    req.end();
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ problem: `no response headers within ${timeoutMs} ms`, timedOut: true });
    }, timeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve({ req, res });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      resolve({ problem: e.message, timedOut: false });
    });
  });
}
