import { type CheckEnv, NotExercised } from '../../../harness/check.js';
import type { Message } from '../../../protocol/messages/index.js';
import { DEFAULT_MAX_HTTP_RUNS, DEFAULT_REQUEST_TIMEOUT_MS, type MessagesServiceCtx } from '../context.js';
import { holdsFrame } from '../frame-rules.js';
import { ServiceBusy } from '../http.js';
import { type BufferedReply, describeReply, mediaTypeOf, type StreamedReply } from '../replies.js';
import { bufferedMessage, streamedMessage } from '../reply-rules.js';
import { TOOL_PROMPT } from '../requests.js';

/** Budget of a check that waits for a real model (the quick tier against a mock takes milliseconds). */
export const NETWORK_BUDGET_MS = 180_000;
/**
 * Budget of a property that sends one request per run: every run's request within its own
 * timeout, one after another. The spec bounds no reply's time, and a check cut at its budget
 * fails: a slow service (a gateway to a local model, 13 s a reply) must not fail at 600 s
 * while each request is within its 60 s.
 */
export const PROPERTY_BUDGET_MS = DEFAULT_MAX_HTTP_RUNS * DEFAULT_REQUEST_TIMEOUT_MS + NETWORK_BUDGET_MS;

export function httpRuns(ctx: MessagesServiceCtx, env: CheckEnv): number {
  return Math.max(1, Math.min(env.runs, ctx.maxHttpRuns));
}

export interface Labeled<T> {
  readonly label: string;
  readonly reply: T;
}

export async function bufferedReplies(ctx: MessagesServiceCtx): Promise<Labeled<BufferedReply>[]> {
  return [
    { label: 'buffered text reply', reply: await ctx.shared.textBuffered() },
    { label: 'buffered tool reply', reply: await ctx.shared.toolBuffered() },
  ];
}

export async function streamedReplies(ctx: MessagesServiceCtx): Promise<Labeled<StreamedReply>[]> {
  return [
    { label: 'text stream', reply: await ctx.shared.textStreamed() },
    { label: 'tool stream', reply: await ctx.shared.toolStreamed() },
  ];
}

/**
 * A 200 answer to a stream request that is an event stream: said so by its content type, or
 * holding frames whatever it says. A JSON body is no stream at all; its frame rules are not
 * broken, not met: the header check owns that one cause.
 */
function isEventStream(reply: StreamedReply): boolean {
  return (
    reply.status === 200 && (mediaTypeOf(reply.headers) === 'text/event-stream' || reply.frames.length > 0)
  );
}

/** The streams that got HTTP 200 and an event stream; skip when none did (the header check reports it). */
export async function okStreams(ctx: MessagesServiceCtx): Promise<Labeled<StreamedReply>[]> {
  const all = await streamedReplies(ctx);
  const ok = all.filter((s) => isEventStream(s.reply));
  if (ok.length === 0) {
    throw new NotExercised(
      `no stream request got HTTP 200 and an event stream (${all.map((s) => `${s.label}: ${describeReply(s.reply)}`).join('; ')}); see messages-service.http.stream-content-type`,
    );
  }
  return ok;
}

/**
 * The 200 streams that carried at least one frame, for checks that judge frames one by one: over a
 * stream without frames they would pass with nothing observed. The order and fold checks take every
 * 200 stream, and fail an empty one.
 */
export async function framedStreams(
  ctx: MessagesServiceCtx,
  { orUnclosed = false }: { orUnclosed?: boolean } = {},
): Promise<Labeled<StreamedReply>[]> {
  const ok = await okStreams(ctx);
  // `orUnclosed`: a stream whose frames were never closed by a blank line dispatched none, yet holds them.
  const framed = ok.filter(
    (s) => s.reply.frames.length > 0 || (orUnclosed && holdsFrame(s.reply.unterminated)),
  );
  if (framed.length === 0) {
    throw new NotExercised(
      `no stream held a frame (${ok.map((s) => `${s.label}: ${describeReply(s.reply)}`).join('; ')}); see messages-service.stream.order`,
    );
  }
  return framed;
}

/**
 * Every reply of the shared requests that yields a message, buffered and streamed. A stream
 * request the service was too busy to answer (ServiceBusy) leaves the buffered messages to
 * judge; with none of them either, the busy service is the outcome.
 */
export async function sharedMessages(ctx: MessagesServiceCtx): Promise<Labeled<Message>[]> {
  const out: Labeled<Message>[] = [];
  for (const { label, reply } of await bufferedReplies(ctx)) {
    const { message } = bufferedMessage(reply);
    if (message) out.push({ label, reply: message });
  }
  let busy: ServiceBusy | undefined;
  const streams: [string, () => Promise<StreamedReply>][] = [
    ['text stream', () => ctx.shared.textStreamed()],
    ['tool stream', () => ctx.shared.toolStreamed()],
  ];
  for (const [label, ask] of streams) {
    const reply = await ask().catch((e: unknown) => {
      if (!(e instanceof ServiceBusy)) throw e;
      busy ??= e;
      return undefined;
    });
    const message = reply === undefined ? undefined : streamedMessage(reply).message;
    if (message) out.push({ label, reply: message });
  }
  if (out.length === 0 && busy !== undefined) throw busy;
  return out;
}

export function hasToolUse(message: Message): boolean {
  return message.content.some((b) => b.type === 'tool_use');
}

export const NO_TOOL_USE = `the service never replied with a tool_use block to ${JSON.stringify(TOOL_PROMPT)} with the bash tool offered`;
