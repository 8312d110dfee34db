import { decodeFrames } from '../../protocol/sse/index.js';
import { type BufferedReply, describeReply, headerOf, mediaTypeOf } from './replies.js';
import { errorTypeOf } from './reply-rules.js';

// What the suite's first request (the probe) tells about the target before any check runs: a
// reply nothing at the URL could have meant as the messages API makes the target one that
// cannot run (exit 2), never a list of protocol failures. Pure over the reply, so it is tested
// without a service.

/** Where the probe went and for what, as the messages name them. */
export interface ProbeSent {
  /** The messages endpoint, POST {base URL}/v1/messages. */
  readonly url: string;
  readonly model: string;
  readonly apiKeyEnv: string;
}

const BASE_URL_HINT = 'is the base URL right? it is the URL without /v1';
const MODEL_HINT = 'does it serve the model? --model names another';

/**
 * Why the probe's reply shows the target cannot be tested at all, or undefined when the
 * checks can judge it. A JSON body of any shape, and an event stream, are left to the checks:
 * they are the messages API answering, rightly or not.
 */
export function probeProblem(probe: BufferedReply, sent: ProbeSent): string | undefined {
  const { url } = sent;
  if (probe.status === 401 || probe.status === 403) {
    return `POST ${url} rejected the key from ${sent.apiKeyEnv}: ${describeReply(probe)}`;
  }
  if (probe.json === undefined && looksLikeWebPage(probe)) {
    return `POST ${url} answered with a web page, not the messages API: ${describeReply(probe)} (${BASE_URL_HINT})`;
  }
  if (probe.status === 404) return notFound(probe, sent);
  if (probe.status === 405) return `POST ${url} is not served: ${describeReply(probe)} (${BASE_URL_HINT})`;
  // A service that refuses the plainest request refuses the others too: the checks of
  // refusals would pass on it for nothing, and every other check would fail for one cause.
  if (probe.status < 200 || probe.status >= 300) {
    return `POST ${url} did not serve the plainest request of the suite (${plainRequest(sent)}): ${describeReply(probe)}; every check needs a service that serves it, so none was run${probeHint(probe.status)}`;
  }
  // A catch-all route (a reverse proxy with no route for the path, a health endpoint) answers
  // 2xx with an empty body or "OK": every check would then fail for that one cause.
  if (probe.json === undefined && !looksLikeJson(probe) && !isEventStream(probe)) {
    return `POST ${url} answered the plainest request of the suite (${plainRequest(sent)}) with ${describeBody(probe)}: expected a JSON message (application/json), or an event stream from a service that streams every reply; nothing there speaks the messages API, so no check was run (${BASE_URL_HINT})`;
  }
  return undefined;
}

/**
 * A 404: the path is not served, or (the real API's not_found_error, anthropics/claude-code#5349:
 * `"message": "model: sonnet4"`) the model is not. The real API's answer to an unknown path is
 * a not_found_error too, so one that names no model leaves both open.
 */
function notFound(probe: BufferedReply, sent: ProbeSent): string {
  if (errorTypeOf(probe) !== 'not_found_error') {
    return `POST ${sent.url} is not served: ${describeReply(probe)} (${BASE_URL_HINT})`;
  }
  const message = (probe.json as { error?: { message?: unknown } }).error?.message;
  const said = typeof message === 'string' ? message : '';
  if (said.includes(sent.model) || /\bmodels?\b/i.test(said)) {
    return `POST ${sent.url} does not serve model ${JSON.stringify(sent.model)}: ${describeReply(probe)}; every check needs a service that serves the plainest request of the suite, so none was run${probeHint(probe.status)}`;
  }
  return `POST ${sent.url} is not served: ${describeReply(probe)}, the API's not_found_error for an unknown path or an unknown model (${BASE_URL_HINT}; ${MODEL_HINT})`;
}

function plainRequest(sent: ProbeSent): string {
  return `a one-line text prompt for model ${JSON.stringify(sent.model)}`;
}

/** Status, content type and the start of the body, an empty body said in words. */
function describeBody(probe: BufferedReply): string {
  if (probe.text !== '') return describeReply(probe);
  const type = headerOf(probe.headers, 'content-type') ?? 'no content-type';
  return `HTTP ${probe.status} (${type}) and an empty body`;
}

/** An HTML answer (a proxy's or a web server's page) to the probe: nothing at that URL speaks the API. */
function looksLikeWebPage(reply: BufferedReply): boolean {
  return mediaTypeOf(reply.headers) === 'text/html' || /^\s*<(!doctype|html)/i.test(reply.text);
}

/**
 * A body that sets out as JSON (a service whose reply is cut or malformed is answering the
 * API, wrongly): the checks judge it.
 */
function looksLikeJson(reply: BufferedReply): boolean {
  return /^\s*[{[]/.test(reply.text);
}

/** Said so by its content type, or frames in the body whatever the type (as the stream checks read one). */
function isEventStream(reply: BufferedReply): boolean {
  if (mediaTypeOf(reply.headers) === 'text/event-stream') return true;
  // A stream's first frame comes early: the rest of a body of up to 32 MiB need not be decoded.
  return decodeFrames([reply.text.slice(0, EVENT_STREAM_SNIFF_CHARS)]).frames.length > 0;
}

const EVENT_STREAM_SNIFF_CHARS = 64 * 1024;

/** What a user can do about a probe refused with `status`. */
function probeHint(status: number): string {
  if (status === 429 || status === 503 || status === 529)
    return ' (it is rate-limited or overloaded: run again later)';
  if (status >= 400 && status < 500) return ` (${MODEL_HINT})`;
  return '';
}
