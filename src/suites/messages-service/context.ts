import { certificateWords } from '../../harness/certificate-refusal.js';
import { TargetUnavailable } from '../../harness/check.js';
import { UsageError } from '../../harness/errors.js';
import { redactUrl } from '../../recording/tools/redact-target.js';
import {
  BudgetSpent,
  CertificateRefused,
  RequestFailed,
  RunawayGuard,
  type ServiceClient,
  sendBuffered,
  sendStreamed,
} from './http.js';
import { probeProblem } from './preflight.js';
import type { BufferedReply, StreamedReply } from './replies.js';
import { followUpRequest, stopSequenceRequest, textRequest, toolRequest } from './requests.js';
import { baseUrlProblem, type MessagesServiceTarget, messagesEndpoint, resolveTarget } from './target.js';

/** How long one request may take before it counts as unanswered. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** The most requests a property sends (one per run), whatever `--runs` asks. */
export const DEFAULT_MAX_HTTP_RUNS = 50;

/** Tuning of the suite itself (not of the target). */
export interface MessagesServiceSuiteOptions {
  /** Cap on fast-check runs of properties that send one request per run (default 50). */
  readonly maxHttpRuns?: number;
  /** Budget of one request, headers to end of body (default 60 s: a real model may be slow). */
  readonly requestTimeoutMs?: number;
  /** Most bytes read of one reply (default 32 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Replies that may run past their budget before the run stops (default 2): a service
   * that streams forever costs the suite at most this many request budgets.
   */
  readonly maxRunawayReplies?: number;
  /** Pause between aborting a stream and the next request (default 200 ms). */
  readonly abortSettleMs?: number;
  /**
   * Characters of reply text (and of the bodies sent) that `sendOnce` remembers in all
   * (default 64 Mi): past it a body is sent again instead of remembered.
   */
  readonly maxRememberedChars?: number;
}

/**
 * The replies several checks judge, each requested once per run (lazily) so a run against
 * a paid API sends as few requests as possible.
 */
export interface SharedReplies {
  textBuffered(): Promise<BufferedReply>;
  textStreamed(): Promise<StreamedReply>;
  toolBuffered(): Promise<BufferedReply>;
  toolStreamed(): Promise<StreamedReply>;
  missingKey(): Promise<BufferedReply>;
  /** The text request with `stream: true` and no key. */
  missingKeyStreamed(): Promise<StreamedReply>;
  /** The text request with `"stream": false` written out. */
  explicitFalse(): Promise<BufferedReply>;
  /** The text request with `stop_sequences: ["wirecheck"]`. */
  stopSequence(): Promise<BufferedReply>;
}

export interface MessagesServiceCtx {
  readonly client: ServiceClient;
  readonly model: string;
  readonly maxHttpRuns: number;
  readonly abortSettleMs: number;
  readonly shared: SharedReplies;
  /**
   * A buffered reply to this raw body, remembered for the run: checks that share a
   * property (same seed, same generated bodies) send each body once.
   */
  sendOnce(raw: string): Promise<BufferedReply>;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= make();
    return promise;
  };
}

/** What `sendOnce` remembers at most: bodies, and characters of their bodies and reply texts. */
export interface RememberLimits {
  readonly maxBodies: number;
  readonly maxChars: number;
}

/**
 * A count alone does not bound the heap: a service answering each invalid body with 31 MiB
 * of error message would make 2000 remembered replies hold some 8 GB.
 */
export const REMEMBER_LIMITS: RememberLimits = { maxBodies: 2000, maxChars: 64 * 1024 * 1024 };

/**
 * `send`, with each reply remembered by its raw body while the limits allow, so checks that
 * share generated bodies send each once. A reply that would pass the character budget is
 * forgotten once it arrives (the callers judge its parsed body, so no clipped form would do):
 * the same body is then simply sent again.
 */
export function rememberingSender(
  send: (raw: string) => Promise<BufferedReply>,
  limits: RememberLimits = REMEMBER_LIMITS,
): (raw: string) => Promise<BufferedReply> {
  const remembered = new Map<string, Promise<BufferedReply>>();
  let chars = 0;
  return (raw) => {
    const known = remembered.get(raw);
    if (known !== undefined) return known;
    const reply = send(raw);
    if (remembered.size >= limits.maxBodies || chars + raw.length > limits.maxChars) return reply;
    remembered.set(raw, reply);
    chars += raw.length;
    // Attached before the caller's await, so the reply is forgotten before the caller goes on.
    reply.then(
      ({ text }) => {
        if (chars + text.length <= limits.maxChars) chars += text.length;
        else if (remembered.delete(raw)) chars -= raw.length;
      },
      // A failed request stays remembered, as before the budget: the caller sees its failure.
      () => undefined,
    );
    return reply;
  };
}

export function createSharedReplies(client: ServiceClient, model: string): SharedReplies {
  const json = (body: unknown) => JSON.stringify(body);
  return {
    // The probe's request: a busy service's answer is returned, for the probe to say so.
    textBuffered: once(() => sendBuffered(client, json(textRequest(model, false)), { busy: 'return' })),
    // A stream still ended by overloaded_error after the retries is kept: its headers and the
    // frames before the error are judged, as any error-ended stream's are.
    textStreamed: once(() => sendStreamed(client, json(textRequest(model, true)), { busyStream: 'return' })),
    toolBuffered: once(() => sendBuffered(client, json(toolRequest(model, false)))),
    toolStreamed: once(() => sendStreamed(client, json(toolRequest(model, true)), { busyStream: 'return' })),
    missingKey: once(() => sendBuffered(client, json(textRequest(model, false)), { withKey: false })),
    missingKeyStreamed: once(() => sendStreamed(client, json(textRequest(model, true)), { withKey: false })),
    explicitFalse: once(() => sendBuffered(client, json(textRequest(model, 'explicit-false')))),
    stopSequence: once(() => sendBuffered(client, json(stopSequenceRequest(model)))),
  };
}

/**
 * Open the suite on a target (the preflight): a missing key is a usage error; one small
 * request must reach a service that serves the messages path, or the target is
 * unavailable (exit 2, no check counted). The probe's reply is kept for the checks.
 */
export async function openMessagesService(
  target: MessagesServiceTarget,
  options: MessagesServiceSuiteOptions,
): Promise<MessagesServiceCtx & { close(): Promise<void> }> {
  const resolved = resolveTarget(target);
  const problem = baseUrlProblem(resolved.baseUrl);
  if (problem !== undefined) throw new UsageError(problem);
  const apiKey = process.env[resolved.apiKeyEnv];
  if (apiKey === undefined || apiKey.trim() === '') {
    throw new UsageError(
      `the environment variable ${resolved.apiKeyEnv} is not set: the messages-service suite sends its value as x-api-key on every request (Authentication); set it, or name another variable with --api-key-env`,
    );
  }
  const lifetime = new AbortController();
  const client: ServiceClient = {
    baseUrl: resolved.baseUrl,
    apiKey,
    ...(target.headers === undefined ? {} : { headers: target.headers }),
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    signal: lifetime.signal,
    runaway: new RunawayGuard(options.maxRunawayReplies ?? 2),
  };
  const shared = createSharedReplies(client, resolved.model);
  const close = async () => lifetime.abort();
  const url = messagesEndpoint(resolved.baseUrl);
  // Credentials in the URL (user:password@, a key in the query) never reach a message.
  const shownBase = redactUrl(resolved.baseUrl);
  const shownUrl = redactUrl(url);
  try {
    // The probe is the smallest request of the suite, kept for the checks that judge it.
    const probe = await shared.textBuffered();
    const problem = probeProblem(probe, {
      url: shownUrl,
      model: resolved.model,
      apiKeyEnv: resolved.apiKeyEnv,
    });
    if (problem !== undefined) throw new TargetUnavailable(problem);
  } catch (e) {
    await close();
    if (e instanceof CertificateRefused) {
      throw new TargetUnavailable(certificateWords(`the messages service at ${shownBase}`, e.refusal));
    }
    if (e instanceof RequestFailed) {
      throw new TargetUnavailable(
        `the messages service at ${shownBase} cannot be reached: one request was sent (POST ${shownUrl} with a one-line text prompt) and it failed: ${e.message}`,
      );
    }
    // A probe wirecheck had to cut leaves no reply any check could judge.
    if (e instanceof BudgetSpent) {
      throw new TargetUnavailable(
        `the messages service at ${shownBase} did not answer the plainest request of the suite in time (POST ${shownUrl} with a one-line text prompt): ${e.message}`,
      );
    }
    throw e;
  }
  const sendOnce = rememberingSender((raw) => sendBuffered(client, raw), {
    ...REMEMBER_LIMITS,
    ...(options.maxRememberedChars === undefined ? {} : { maxChars: options.maxRememberedChars }),
  });
  return {
    client,
    model: resolved.model,
    maxHttpRuns: options.maxHttpRuns ?? DEFAULT_MAX_HTTP_RUNS,
    abortSettleMs: options.abortSettleMs ?? 200,
    shared,
    sendOnce,
    close,
  };
}

export function followUps(ctx: MessagesServiceCtx, commands: readonly string[]): Promise<BufferedReply> {
  return sendBuffered(ctx.client, JSON.stringify(followUpRequest(ctx.model, commands)));
}
