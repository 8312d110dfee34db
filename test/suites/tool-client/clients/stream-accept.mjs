// For the clients that open the SSE stream with another Accept header (sse-accept.mjs,
// no-accept.mjs): fetch cannot leave the header out (undici adds `Accept: */*`), so a GET
// without it is sent through node:http instead.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

/**
 * fetch as base.mjs calls it, except that a GET naming no Accept (base.mjs's noAccept flaw,
 * the stream's GET) goes out with `accept`, or with none when it is undefined.
 */
export function openStreamWith(accept) {
  const fetched = globalThis.fetch;
  globalThis.fetch = (url, init = {}) => {
    const headers = new Headers(init.headers);
    if ((init.method ?? 'GET') !== 'GET' || headers.has('accept')) return fetched(url, init);
    if (accept !== undefined) {
      headers.set('accept', accept);
      return fetched(url, { ...init, headers });
    }
    return withoutAccept(new URL(url), headers, init.signal);
  };
}

/** A GET of `url` with exactly `headers` (node:http adds no Accept), as a fetch Response. */
function withoutAccept(url, headers, signal) {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'GET',
      headers: Object.fromEntries(headers),
      ...(signal && { signal }),
    });
    request.on('response', (response) => {
      const answered = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const one of [value].flat()) if (one !== undefined) answered.append(name, one);
      }
      resolve(
        new Response(Readable.toWeb(response), {
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: answered,
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}
