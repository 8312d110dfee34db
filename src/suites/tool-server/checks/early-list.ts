import { METHODS } from '../../../protocol/mcp/index.js';
import type { Channel } from '../channel.js';
import type { ToolServerCtx } from '../context.js';
import { type Exchange, exchange, initialize, postAccepted } from '../rpc.js';
import { revisionOf } from '../target.js';

/** A tools/list sent before initialize, and the initialize sent after it on the same session. */
export interface EarlyList {
  /** The early request; its reply may be one that came only after initialize (`deferred`). */
  readonly early: Exchange;
  readonly init: Exchange;
  /** The early reply came only once the session was initialized: the server held it until then. */
  readonly deferred: boolean;
}

/**
 * Send tools/list before initialize, then initialize. A server may hold a request made before
 * initialize until the session is initialized and answer it then (MCP states no rule for such a
 * request), so an early request unanswered within its budget is waited for once more after
 * initialize was answered.
 */
export async function listBeforeInitialize(ctx: ToolServerCtx, channel: Channel): Promise<EarlyList> {
  const early = await exchange(channel, METHODS.toolsList, {}, ctx.firstReplyMs);
  const init = await initialize(channel, ctx.replyMs, revisionOf(ctx.target));
  if (early.reply !== undefined || init.reply === undefined || !postAccepted(early.post)) {
    return { early, init, deferred: false };
  }
  const late = await channel.peer.wait(early.id, ctx.replyMs, () => channel.gone());
  if (late.reply === undefined) {
    const why = `${early.why}; none within ${ctx.replyMs} ms after initialize was answered either`;
    return { early: { ...early, why }, init, deferred: false };
  }
  return { early: { ...early, reply: late.reply }, init, deferred: true };
}
