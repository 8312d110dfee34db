import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What a mock lets a page's script do with it once the page's Origin passed the server's own
 * checks: a browser client under test (the official SDK in a page, a web app pointed at the
 * mock) is served as the real service serves it, and can read the headers it acts on.
 */
export interface CorsPolicy {
  /** `Access-Control-Allow-Methods` of a preflight's answer. */
  readonly methods: string;
  /** `Access-Control-Expose-Headers`: the answer headers a page's script may read. */
  readonly exposed: string;
}

/** Marks an answer to a request from a page (`Origin`) as readable by that page. */
export function allowOrigin(request: FastifyRequest, reply: FastifyReply, policy: CorsPolicy): void {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return;
  // On the raw response: a route that hijacks its reply (an event stream) keeps them.
  reply.raw.setHeader('access-control-allow-origin', origin);
  reply.raw.setHeader('access-control-expose-headers', policy.exposed);
  reply.raw.setHeader('vary', 'Origin');
}

/** Whether the request is a browser's preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    typeof request.headers.origin === 'string' &&
    typeof request.headers['access-control-request-method'] === 'string'
  );
}

/**
 * Whether the request is a browser's preflight; if so it is answered 204, allowing the
 * policy's methods with the headers the page asked to send (its credentials, its session).
 * The caller has already judged the Origin: a page it refuses gets no preflight answer.
 */
export function answeredPreflight(request: FastifyRequest, reply: FastifyReply, policy: CorsPolicy): boolean {
  if (!isPreflight(request)) return false;
  allowOrigin(request, reply, policy);
  const asked = request.headers['access-control-request-headers'];
  void reply
    .code(204)
    .header('access-control-allow-methods', policy.methods)
    .header('access-control-allow-headers', typeof asked === 'string' ? asked : '')
    .header('access-control-max-age', '600')
    .send();
  return true;
}
