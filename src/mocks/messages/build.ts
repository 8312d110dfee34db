import type { Socket } from 'node:net';
import fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { errorTypeForStatus } from '../../protocol/messages/index.js';
import { thrownMessage } from '../../protocol/thrown.js';
import {
  mergeSecrets,
  redactHeaders,
  redactTarget,
  secretsOf,
  secretsOfTarget,
} from '../../recording/redact.js';
import { REQUEST_TIMEOUT_MS, RequestHolds } from '../../servers/http/body-budget.js';
import { allowOrigin, answeredPreflight, type CorsPolicy, isPreflight } from '../../servers/http/cors.js';
import { type HostPolicy, hostRefusal, originRefusal } from '../../servers/http/host-guard.js';
import { nodeHttp } from '../../transports/node-http.js';
import { errorBodyFor, newRequestId } from './api-errors.js';
import { CONTROL_PREFIX, registerControlRoutes } from './control-routes.js';
import { decodeBodyHook } from './decode-body.js';
import { journalEntry } from './journal.js';
import { registerMessagesRoute, sendError } from './messages-route.js';
import type { MockMessagesOptions } from './options.js';
import { configuredKeyIn, credentialsOf, headersOf, versionOf } from './request-headers.js';
import { MockState } from './state.js';

// A browser client under test (the official SDK with dangerouslyAllowBrowser, a web app whose
// base URL is the mock) is served as the real API serves it: any page origin may call the
// service routes, and reads the headers a client logs and retries by. The control routes never are.
const MESSAGES_CORS: CorsPolicy = {
  methods: 'POST, OPTIONS',
  exposed: 'request-id, retry-after, retry-after-ms',
};

/** The header by which a page's script opts in to calling the real API from a browser (the SDK's `dangerouslyAllowBrowser`). */
const BROWSER_ACCESS = 'anthropic-dangerous-direct-browser-access';

/**
 * Whether a page may read the mock's answers: one the Origin check lets through (a loopback
 * name, `allowedHosts`: the app under test, not any site the user visits) that opts in as
 * the real API asks, or whose preflight asks to send that header. Otherwise the request is
 * served as any other, and the browser keeps the answer from the page, as it would the real API's.
 */
function servesPage(request: FastifyRequest, hosts: HostPolicy): boolean {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || originRefusal(hosts, origin) !== undefined) return false;
  if (isPreflight(request)) {
    const asked = request.headers['access-control-request-headers'];
    return (
      typeof asked === 'string' &&
      asked
        .toLowerCase()
        .split(',')
        .some((h) => h.trim() === BROWSER_ACCESS)
    );
  }
  return request.headers[BROWSER_ACCESS] === 'true';
}

/** The mock's Fastify app and the state behind it (scenario, faults, journal). Never listens. */
export function createMockMessagesApp(opts: MockMessagesOptions = {}): {
  app: FastifyInstance;
  state: MockState;
} {
  const state = new MockState(opts);
  /** What each request holds of the bodies' budget, until its answer ends. */
  const holds = new RequestHolds(state.bodies, state.bodyLimit);
  const app = fastify({
    logger: opts.logger ?? false,
    bodyLimit: state.bodyLimit,
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    // Stalled streams never end on their own: close() must cut them.
    forceCloseConnections: true,
    // A body that stalls (headers sent, then nothing) holds its connection and what it read
    // of the budget: Node cuts a request not received whole within this (answered 408 by
    // clientErrorHandler). It bounds receiving the request only, never a long answer
    // (Node's http server clears it once the request is parsed). Fastify's default is none.
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler,
  });

  // Bodies are kept as text: the journal records invalid JSON as sent, and the route
  // answers it with the real API's error body instead of a framework error. JSON text is
  // UTF-8 (RFC 8259): invalid bytes are refused, not silently replaced by U+FFFD.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, strictUtf8.decode(body as Buffer));
    } catch {
      const entry = state.entryOf(request);
      const message = 'request body is not valid UTF-8';
      if (entry) {
        state.keepBody(request, entry, (body as Buffer).toString());
        entry.bodyError = message;
      }
      done(Object.assign(new Error(message), { statusCode: 400 }), undefined);
    }
  });

  // Callback-style hooks: no promise per request and hook.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('request-id', request.id);
    // DNS rebinding: a page of another site reaches 127.0.0.1 under its own name. And the
    // control routes are for tests and tools, never for pages of other sites.
    const control = request.url.startsWith(CONTROL_PREFIX);
    const refusal =
      hostRefusal(state.hosts, request.headers.host) ??
      (control ? originRefusal(state.hosts, request.headers.origin) : undefined);
    const refuse = (why: string) =>
      void reply
        .code(403)
        .type('application/json')
        .send(errorBodyFor(403, request.id, 'permission_error', why));
    if (control) {
      if (refusal !== undefined) return refuse(refusal);
      return done();
    }
    if (refusal === undefined && servesPage(request, state.hosts)) {
      if (answeredPreflight(request, reply, MESSAGES_CORS)) return;
      allowOrigin(request, reply, MESSAGES_CORS);
    }
    const raw = headersOf(request.raw.rawHeaders);
    const credentials = credentialsOf(raw);
    // The journal keeps no credential: headers named like one are redacted, and the key the
    // request presented is scrubbed wherever else it appears (other headers, the URL, the body).
    // The list is as long as the headers allow (Node's 16 KiB), and so are the headers and URL
    // searched for each value; a body is scrubbed of at most MAX_BODY_SECRETS, or withheld.
    const secrets = mergeSecrets([credentials.key], secretsOf(raw), secretsOfTarget(request.url));
    const entry = journalEntry({
      seq: state.takeSeq(),
      requestId: request.id,
      method: request.method,
      url: redactTarget(request.url, secrets),
      headers: redactHeaders(raw, secrets),
      receivedAt: Date.now(),
      receivedAtMono: performance.now(),
      auth: credentials.scheme,
      configuredKeyIn: configuredKeyIn(raw, state.apiKey),
      version: versionOf(raw),
      stream: false,
      framesWritten: 0,
      bytesWritten: 0,
      outcome: 'pending',
      clientAborted: false,
    });
    state.attach(request, entry, { credentials, secrets });
    state.journal.record(entry);
    // Journaled, then refused (before its body is read): a user whose client is refused sees why.
    if (refusal !== undefined) return refuse(refusal);
    const busy = holds.reserve(request.raw, reply.raw);
    if (busy !== undefined) {
      return void reply
        .code(529)
        .type('application/json')
        .send(errorBodyFor(529, request.id, 'overloaded_error', busy));
    }
    done();
  });

  // A chunked body takes from the budget as its bytes arrive; past the budget it is refused
  // with the mock's 529 (the error handler), and its connection closed after the answer.
  app.addHook('preParsing', (request, _reply, payload, done) =>
    done(
      null,
      holds.metered(request.raw, payload, (why) => Object.assign(new Error(why), { statusCode: 529 })),
    ),
  );
  // After the meter, which counts the bytes as they arrive: the limit counts them decoded.
  app.addHook('preParsing', decodeBodyHook(state));

  app.addHook('onResponse', (request, reply, done) => {
    const entry = state.entryOf(request);
    // Streams record their own end (onResponse also fires for them, on 'finish').
    if (
      entry?.outcome !== 'pending' ||
      String(reply.getHeader('content-type')).startsWith('text/event-stream')
    ) {
      return done();
    }
    entry.status = reply.statusCode;
    entry.bytesWritten = Number(reply.getHeader('content-length') ?? 0);
    entry.outcome = 'completed';
    entry.endedAtMono = performance.now();
    state.journal.changed(entry);
    done();
  });

  app.addHook('onRequestAbort', (request, done) => {
    const entry = state.entryOf(request);
    if (entry?.outcome !== 'pending' || entry.status !== undefined) return done();
    entry.outcome = state.closing ? 'server-closed' : 'client-aborted';
    entry.clientAborted = !state.closing;
    entry.endedAtMono = performance.now();
    state.journal.changed(entry);
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (reply.raw.headersSent) {
      // Too late for an error body: the connection is cut, and the journal says why (the
      // suites tell the mock's failure from the client's by streamError).
      request.log.error(error, 'mock messages service error after the headers');
      const entry = state.entryOf(request);
      if (entry?.outcome === 'pending') {
        entry.streamError = `the mock failed after its headers went out: ${thrownMessage(error)}`;
        entry.status ??= reply.raw.statusCode;
        entry.outcome = 'disconnected';
        entry.endedAtMono = performance.now();
        state.journal.changed(entry);
      }
      reply.raw.destroy();
      return;
    }
    const raw = error.statusCode;
    const status = typeof raw === 'number' && raw >= 400 && raw < 600 ? raw : 500;
    if (status === 529) {
      // Only the body budget raises a 529 here: the rest of that body is never read.
      return sendError(state, request, reply, 529, 'overloaded_error', error.message, {
        connection: 'close',
      });
    }
    if (status === 413) {
      return sendError(
        state,
        request,
        reply,
        413,
        'request_too_large',
        `Request exceeds the maximum allowed number of bytes (${state.bodyLimit}).`,
      );
    }
    if (status >= 500) {
      request.log.error(error, 'mock messages service error');
      return sendError(
        state,
        request,
        reply,
        status,
        'api_error',
        `internal error in the mock: ${error.message}`,
      );
    }
    const type = status === 415 ? 'invalid_request_error' : errorTypeForStatus(status);
    return sendError(state, request, reply, status, type, error.message);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(state, request, reply, 404, 'not_found_error', `Not found: ${request.method} ${request.url}`),
  );

  registerMessagesRoute(app, state);
  registerControlRoutes(app, state);
  app.addHook('onClose', async () => {
    state.closing = true;
  });
  return { app, state };
}

// ignoreBOM keeps a leading BOM in the text, so JSON.parse refuses it as before.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The mock messages service as a Fastify app, for `inject()` or your own `listen()`. Never listens. */
export function build(opts: MockMessagesOptions = {}): FastifyInstance {
  return createMockMessagesApp(opts).app;
}

/**
 * Malformed HTTP (bad request line, oversized headers) never reaches a route: answer it
 * with the real API's error body too, then close.
 */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const id = newRequestId();
  const body = JSON.stringify(
    errorBodyFor(
      status,
      id,
      'invalid_request_error',
      `malformed HTTP request: ${error.code ?? error.message}`,
    ),
  );
  socket.end(
    `HTTP/1.1 ${status} ${nodeHttp.STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nrequest-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
  );
}
