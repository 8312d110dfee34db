import { parseJsonBounded } from '../../protocol/json/index.js';
import { TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';
import type { PostOutcome } from './channel.js';
import type { Exchange } from './rpc.js';
import type { SseChannel } from './sse-channel.js';

// Where an SSE server put the reply to a POSTed request. The spec has it on the session's
// stream as event `message`: a client waiting there never sees one put anywhere else.

/** Whether `text` is a JSON-RPC reply (a result or an error) to request `id`. */
export function isReplyTo(text: string, id: number): boolean {
  const parsed = parseJsonBounded(text);
  if (!parsed.ok) return false;
  const v = parsed.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return (v as { id?: unknown }).id === id && ('result' in v || 'error' in v);
}

export interface MisplacedReply {
  /** "in the POST response body", "as event \"response\"". */
  readonly where: string;
  readonly actual: string;
  /** The stream frame that carried it, when it came on the stream. */
  readonly frameIndex?: number;
}

/**
 * The reply to `ex` when it came elsewhere than on the stream as event `message`: as an event
 * of another name, or in the POST response body. Undefined when it came as it should, or
 * nowhere: silence is the business of the checks that wait for a reply.
 */
export function misplacedReply(channel: SseChannel, ex: Exchange): MisplacedReply | undefined {
  // Only message events reach the peer: a reply it got came as it should.
  if (ex.reply !== undefined) return undefined;
  const frameIndex = channel.frames.findIndex(
    (f) =>
      !f.comment &&
      (f.event ?? TOOL_SSE_EVENTS.message) !== TOOL_SSE_EVENTS.message &&
      isReplyTo(f.data, ex.id),
  );
  const frame = channel.frames[frameIndex];
  if (frame !== undefined) {
    return { where: `as event ${JSON.stringify(frame.event)}`, actual: frame.data.slice(0, 300), frameIndex };
  }
  if (ex.post !== undefined && isReplyTo(ex.post.body, ex.id)) {
    return { where: 'in the POST response body', actual: `POST body ${ex.post.body.slice(0, 300)}` };
  }
  return undefined;
}

/**
 * Whether a POST's answer carries a JSON-RPC reply (a result or an error, whatever its id; in a
 * batch too) in its body. Only a 2xx answer counts: one that refuses the POST with an HTTP error
 * may explain why in a JSON-RPC error (MCP allows it over Streamable HTTP), which is no reply.
 */
export function replyInPostBody(post: PostOutcome | undefined): boolean {
  if (post?.status === undefined || post.status < 200 || post.status > 299) return false;
  const parsed = parseJsonBounded(post.body);
  if (!parsed.ok) return false;
  const isReply = (v: unknown) =>
    typeof v === 'object' &&
    v !== null &&
    (v as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
    ('result' in v || 'error' in v);
  return Array.isArray(parsed.value) ? parsed.value.some(isReply) : isReply(parsed.value);
}
