import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MessageRequest } from '../../protocol/messages/index.js';
import { depthProblem } from '../limits.js';
import { errorBodyFor } from './api-errors.js';
import { turnIndexOf } from './conversation.js';
import { ConnectionWatch, executePlan, type StreamEnd, type StreamProgress } from './execute-plan.js';
import { type FaultPlan, mergeFaults } from './faults.js';
import type { JournalEntry } from './journal.js';
import { jsonErrorMessage } from './json-error.js';
import { cutOnOwnFailure } from './own-failure.js';
import {
  EOL,
  type PlanOptions,
  perFrame,
  planMessageSteps,
  planSteps,
  type StreamStep,
} from './plan-stream.js';
import { mixSeed } from './random.js';
import { serveRecorded } from './replay-route.js';
import type { Reply } from './reply.js';
import { replyProblem } from './reply-problem.js';
import { framesOfRaw } from './source-frames.js';
import type { MockState } from './state.js';
import { validateRequest } from './validate-request.js';

/** Send the real API's error body and record it. */
export function sendError(
  state: MockState,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  errorType?: string,
  message?: string,
  headers?: Record<string, string>,
): FastifyReply {
  const body = errorBodyFor(status, request.id, errorType, message);
  const entry = state.entryOf(request);
  if (entry) entry.errorType = body.error.type;
  if (headers) reply.headers(headers);
  return reply.code(status).type('application/json').send(body);
}

/** Answer with a fault plan's HTTP error and its retry headers. */
function sendHttpError(
  state: MockState,
  request: FastifyRequest,
  reply: FastifyReply,
  httpError: NonNullable<FaultPlan['httpError']>,
): FastifyReply {
  const headers: Record<string, string> = { ...httpError.headers };
  const retryAfter = httpError.retryAfterS ?? (httpError.status === 429 ? 1 : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (httpError.retryAfterMs !== undefined) headers['retry-after-ms'] = String(httpError.retryAfterMs);
  return sendError(state, request, reply, httpError.status, httpError.errorType, httpError.message, headers);
}

/** Why the headers alone refuse the request (the real API checks them before the body). */
function headerRefusal(
  state: MockState,
  request: FastifyRequest,
  entry: JournalEntry,
): { status: number; type: string; message: string } | undefined {
  const { credentials } = state.presentedBy(request);
  if (state.requireApiKey && credentials.scheme === 'none') {
    return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  }
  if (state.apiKey !== undefined && credentials.scheme !== 'none' && credentials.key !== state.apiKey) {
    return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
  }
  if (state.requireVersion && entry.version === null) {
    return {
      status: 400,
      type: 'invalid_request_error',
      message: 'anthropic-version: header is required (service-version or anthropic-version)',
    };
  }
  const accepted = state.acceptedVersions;
  if (accepted && entry.version && !accepted.includes(entry.version.value)) {
    const { header, value } = entry.version;
    return {
      status: 400,
      type: 'invalid_request_error',
      message: `${header}: "${value}" is not a valid version; expected one of ${accepted.join(', ')}`,
    };
  }
  return undefined;
}

/** `POST /v1/messages`: header checks before the body is read, then the scenario. */
export function registerMessagesRoute(app: FastifyInstance, state: MockState): void {
  app.post('/v1/messages', {
    onRequest: (request, reply, done) => {
      const entry = state.entryOf(request);
      const refusal = entry && headerRefusal(state, request, entry);
      if (refusal) sendError(state, request, reply, refusal.status, refusal.type, refusal.message);
      else done();
    },
    handler: (request, reply) => handleMessages(state, request, reply),
  });
}

async function handleMessages(
  state: MockState,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const entry = state.entryOf(request)!;
  const text = typeof request.body === 'string' ? request.body : '';
  // Depth is measured by a linear scan before anything parses or walks the body.
  const deep = depthProblem(text);
  if (deep !== undefined) {
    state.keepBody(request, entry, text);
    entry.bodyError = `request body: ${deep}`;
    return sendError(state, request, reply, 400, 'invalid_request_error', entry.bodyError);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    state.keepBody(request, entry, text);
    // The parser quotes the body where it failed: a key pasted there would reach the journal.
    entry.bodyError = `request body is not valid JSON: ${jsonErrorMessage(e, state.presentedBy(request).secrets)}`;
    return sendError(state, request, reply, 400, 'invalid_request_error', entry.bodyError);
  }
  // The journal keeps text (its size is known); the parsed value says which fields to redact.
  state.keepBody(request, entry, text, { value: body });
  entry.stream = (body as { stream?: unknown } | null)?.stream === true;
  const check = validateRequest(body);
  let served: MessageRequest;
  if (check.ok) served = check.request;
  else if (state.admit?.(body) === true) {
    entry.realApiRefusal = check.message;
    // Vouched for by `admit`: the fields the scenario reads are there (the option says so).
    served = body as MessageRequest;
  } else {
    entry.bodyError = check.message;
    return sendError(state, request, reply, 400, 'invalid_request_error', check.message);
  }
  body = undefined;
  // Before the scenario: a request answered with the service's error must not use up a
  // scripted or replayed reply, or the client's retry (what `times` is for) gets the next one.
  const serviceError = state.takeHttpError(state.faults);
  if (serviceError) return sendHttpError(state, request, reply, serviceError);
  const ctx = {
    turnIndex: turnIndexOf(served),
    requestIndex: entry.seq,
    journal: state.journal,
    secrets: state.presentedBy(request).secrets,
  };
  let result: Reply;
  try {
    result = await state.scenario(served, ctx);
  } catch (e) {
    return sendError(
      state,
      request,
      reply,
      500,
      'api_error',
      `the mock's scenario failed: ${(e as Error).message}`,
    );
  }
  const problem = replyProblem(result);
  if (problem) {
    return sendError(state, request, reply, 500, 'api_error', `the mock's scenario returned ${problem}`);
  }
  if (result.kind === 'error') {
    return sendError(state, request, reply, result.status, result.errorType, result.message, result.headers);
  }
  const faults = mergeFaults(state.faults, result.faults);
  const replyError = state.takeHttpError(result.faults);
  if (replyError) return sendHttpError(state, request, reply, replyError);
  if (faults?.headersDelayMs) {
    const progress: StreamProgress = { framesWritten: 0, bytesWritten: 0 };
    const watch = new ConnectionWatch(reply.raw, progress);
    await watch.sleep(faults.headersDelayMs);
    if (watch.gone) {
      reply.hijack();
      finish(state, entry, state.closing ? 'server-closed' : 'client-aborted', progress);
      return reply;
    }
  }
  if (result.kind === 'recorded') {
    reply.hijack();
    await serveRecorded(state, request, reply, entry, result, faults);
    return reply;
  }
  if (result.kind === 'message' && !entry.stream) {
    return reply.code(200).type('application/json').send(JSON.stringify(result.message));
  }
  reply.hijack();
  await serveStream(state, request, reply, entry, result, faults);
  return reply;
}

async function serveStream(
  state: MockState,
  request: FastifyRequest,
  reply: FastifyReply,
  entry: JournalEntry,
  result: Extract<Reply, { kind: 'message' | 'raw' }>,
  faults: FaultPlan | undefined,
): Promise<void> {
  const res = reply.raw;
  const progress: StreamProgress = entry;
  let watch: ConnectionWatch | undefined;
  let end: StreamEnd;
  try {
    watch = new ConnectionWatch(res, progress);
    end = await writeStream(state, request, res, entry, result, faults, watch);
  } catch (e) {
    end = cutOnOwnFailure(request, res, entry, "stream the scenario's reply", e);
  }
  if (faults?.errorEvent && end === 'completed' && entry.framesWritten === faults.errorEvent.atFrame) {
    entry.errorType = faults.errorEvent.errorType ?? 'overloaded_error';
  }
  if (end === 'client-aborted') {
    entry.abortedAtFrame = watch?.goneAtFrame ?? entry.framesWritten;
  }
  finish(state, entry, end === 'client-aborted' && state.closing ? 'server-closed' : end, progress);
}

/** The 200 headers, then the reply's frames as planned; how the writing ended. */
async function writeStream(
  state: MockState,
  request: FastifyRequest,
  res: FastifyReply['raw'],
  entry: JournalEntry,
  result: Extract<Reply, { kind: 'message' | 'raw' }>,
  faults: FaultPlan | undefined,
  watch: ConnectionWatch,
): Promise<StreamEnd> {
  const seed = mixSeed(faults?.seed ?? state.seed, entry.seq);
  entry.seed = seed;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'request-id': request.id,
  });
  entry.status = 200;
  state.journal.changed(entry);
  const options: PlanOptions = {
    requestId: request.id,
    framesPerWrite: state.framesPerWrite,
    ...(state.pingIntervalMs !== undefined && { keepAliveMs: state.pingIntervalMs }),
  };
  let steps: Iterable<StreamStep>;
  if (result.kind === 'raw') steps = planSteps(framesOfRaw(result.frames), faults, seed, options);
  else if (faults && perFrame(faults))
    steps = planMessageSteps(result.message, result.splits, faults, seed, options);
  else {
    const eol = EOL[faults?.lineEnding ?? 'lf'];
    steps = state.streamCache.steps(result.message, result.splits, eol, state.framesPerWrite);
  }
  return executePlan(res, steps, watch, entry);
}

function finish(
  state: MockState,
  entry: JournalEntry,
  outcome: JournalEntry['outcome'],
  progress: StreamProgress,
): void {
  entry.framesWritten = progress.framesWritten;
  entry.bytesWritten = progress.bytesWritten;
  entry.outcome = outcome;
  entry.clientAborted = outcome === 'client-aborted';
  entry.endedAtMono = performance.now();
  state.journal.changed(entry);
}
