import { CheckFailure, NotExercised } from '../../harness/check.js';
import type { JsonRpcResponse } from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import type { Channel } from './channel.js';
import { rpcEvidence } from './evidence.js';
import { cancelRequest, type Exchange, exchange, postAccepted } from './rpc.js';
import { excuseSilence, noteExchange } from './silence.js';

/**
 * A call and the ping after it both unanswered within the reply budget: the ping gets this
 * many budgets more before the server is judged to have stopped answering, so that a server
 * slowed by a busy machine is not called dead (a dead one stays silent; one that crashed is
 * seen gone at once).
 */
export const LATE_REPLY_FACTOR = 3;

/**
 * How long a session answers nothing at all (a call, the ping after it, and the ping's late
 * wait) before it counts as silent rather than slow.
 */
export function silenceMs(replyMs: number): number {
  return (2 + LATE_REPLY_FACTOR) * replyMs;
}

/** One request of several sent at once, on its session. */
export interface SentRequest {
  readonly channel: Channel;
  readonly ex: Exchange;
}

/** What a request of a burst got once its late window passed. */
export interface LateOutcome {
  readonly reply: JsonRpcResponse | undefined;
  /** Why no reply, both waits said (undefined when one came). */
  readonly why: string | undefined;
  /** How long it was waited for after its budget: 0 when answered in time or refused. */
  readonly lateMs: number;
}

/**
 * The replies of requests sent at once. One the server took (its POST accepted, or one that got
 * no HTTP response at all: a process busy with a slow call) and left unanswered within the reply
 * budget may be slow, not lost: many requests at once slow a server, and JSON-RPC sets no
 * deadline. It gets LATE_REPLY_FACTOR budgets more, all of them waited for together, so the
 * allowance costs one window however many are late, and nothing when none is. A POST refused
 * (4xx, 5xx) will not be answered and is not waited for.
 */
export async function withLateReplies(sent: readonly SentRequest[], replyMs: number): Promise<LateOutcome[]> {
  const lateMs = LATE_REPLY_FACTOR * replyMs;
  return Promise.all(
    sent.map(async ({ channel, ex }): Promise<LateOutcome> => {
      if (ex.reply !== undefined) return { reply: ex.reply, why: undefined, lateMs: 0 };
      if (!postAccepted(ex.post) && ex.post?.timedOut !== true)
        return { reply: undefined, why: ex.why, lateMs: 0 };
      const late = await channel.peer.wait(ex.id, lateMs, () => channel.gone());
      return late.reply !== undefined
        ? { reply: late.reply, why: undefined, lateMs }
        : { reply: undefined, why: `${ex.why}; then ${late.why}`, lateMs };
    }),
  );
}

/**
 * What one request got; when unanswered, whether the session still answers a ping (`alive`),
 * and when it does not, whether the session ended (`gone`) or only fell silent.
 */
export type Answered =
  | { readonly ex: Exchange; readonly reply: JsonRpcResponse }
  | { readonly ex: Exchange; readonly reply: undefined; readonly alive: true }
  | {
      readonly ex: Exchange;
      readonly reply: undefined;
      readonly alive: false;
      readonly gone: boolean;
      readonly why: string;
    };

/**
 * Send a request and wait the reply budget; when nothing came, ask a ping, and give that ping
 * LATE_REPLY_FACTOR budgets more before calling the session silent. JSON-RPC sets no time for
 * an answer: a request still pending while the session answers a ping is slow, not unanswered.
 */
export async function answeredOrAlive(
  channel: Channel,
  method: string,
  params: Record<string, unknown> | undefined,
  replyMs: number,
): Promise<Answered> {
  const ex = await exchange(channel, method, params, replyMs);
  if (ex.reply !== undefined) return { ex, reply: ex.reply };
  if (channel.gone() !== undefined)
    return { ex, reply: undefined, alive: false, gone: true, why: ex.why ?? 'no reply' };
  const ping = await exchange(channel, METHODS.ping, undefined, replyMs);
  let pong = ping.reply;
  if (pong === undefined) {
    const late = await channel.peer.wait(ping.id, LATE_REPLY_FACTOR * replyMs, () => channel.gone());
    if (late.reply === undefined) {
      return {
        ex,
        reply: undefined,
        alive: false,
        gone: channel.gone() !== undefined,
        why: `${ex.why}; ping: ${ping.why}; nothing for ${LATE_REPLY_FACTOR} times as long again: ${late.why}`,
      };
    }
    // The late reply counts for the silence watch: a server serving one request at a time,
    // busy with a slow tool, is not gone.
    noteExchange(channel, METHODS.ping, { ...ping, reply: late.reply });
    pong = late.reply;
  }
  // The request's own reply may have come meanwhile (before the ping's, in order).
  const reply = (await channel.peer.wait(ex.id, 0, () => undefined)).reply;
  if (reply !== undefined) return { ex, reply };
  return { ex, reply: undefined, alive: true };
}

/**
 * A tools/call's reply for a check that judges the answer. A call the session is still
 * working on (it answers a ping) leaves nothing to judge: NotExercised naming the budget,
 * and the server is told to stop. A session that answers nothing at all but did not end is
 * what a server serving one request at a time looks like inside a long call: NotExercised
 * too, the session closed so the next check gets a fresh one (tools.generated-arguments-answered
 * reports silence). Only a session that ended fails.
 */
export async function toolCallReply(
  channel: Channel,
  params: { readonly name: string; readonly arguments?: Record<string, unknown> },
  replyMs: number,
): Promise<JsonRpcResponse> {
  const got = await answeredOrAlive(channel, METHODS.toolsCall, { ...params }, replyMs);
  if (got.reply !== undefined) return got.reply;
  if (got.alive || !got.gone) {
    await cancelRequest(channel, got.ex.id);
  }
  if (got.alive) {
    throw new NotExercised(
      `tools/call of ${params.name} got no reply within the ${replyMs} ms reply budget, though the session still answered a ping: the tool may just be slow (JSON-RPC sets no deadline; tools.generated-arguments-answered warns for slowness), so there was no answer to judge`,
    );
  }
  if (!got.gone) {
    excuseSilence(channel);
    await channel.close();
    throw new NotExercised(
      `tools/call of ${params.name} got no reply, and the session answered nothing, not even a ping, for ${silenceMs(replyMs)} ms, though it did not end: a server busy with a long call looks the same (JSON-RPC sets no deadline), so there was no answer to judge (${got.why})`,
    );
  }
  throw new CheckFailure(
    `tools/call of ${params.name} got no reply and the session ended (${got.why})`,
    'a JSON-RPC reply with the request id, and the server still serving',
    `no reply; ${channel.diagnosis().summary}`,
    rpcEvidence(`tools/call on ${channel.peer.label}`, [channel]),
  );
}
