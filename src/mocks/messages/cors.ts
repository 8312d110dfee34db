import type { FastifyReply, FastifyRequest } from 'fastify';

// A browser client under test (the official SDK with dangerouslyAllowBrowser, a web app whose
// base URL is the mock) is served as the real API serves it: any page origin may call the
// service routes, and reads the headers a client acts on. The control routes never are.

/** Headers a page's script may read from an answer: the ones clients log and retry by. */
const EXPOSED = 'request-id, retry-after, retry-after-ms';

/** Marks an answer to a request from a page (`Origin`) as readable by that page. */
export function allowOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return;
  reply.raw.setHeader('access-control-allow-origin', origin);
  reply.raw.setHeader('access-control-expose-headers', EXPOSED);
  reply.raw.setHeader('vary', 'Origin');
}

/**
 * Whether the request is a browser's preflight (OPTIONS with `Origin` and
 * `Access-Control-Request-Method`); if so it is answered 204, allowing POST with the headers
 * the page asked to send (its key, the version, the SDK's own).
 */
export function answeredPreflight(request: FastifyRequest, reply: FastifyReply): boolean {
  const method = request.headers['access-control-request-method'];
  if (request.method !== 'OPTIONS' || typeof request.headers.origin !== 'string' || method === undefined) {
    return false;
  }
  allowOrigin(request, reply);
  const asked = request.headers['access-control-request-headers'];
  void reply
    .code(204)
    .header('access-control-allow-methods', 'POST, OPTIONS')
    .header('access-control-allow-headers', typeof asked === 'string' ? asked : '')
    .header('access-control-max-age', '600')
    .send();
  return true;
}
