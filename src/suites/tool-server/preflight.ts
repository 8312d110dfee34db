import { parseJsonBounded } from '../../protocol/json/index.js';
import {
  METHODS,
  PROTOCOL_REVISIONS,
  PROTOCOL_VERSION,
  transportRevisionMismatch,
} from '../../protocol/mcp/index.js';
import type { Channel } from './channel.js';
import { cannotSpeakProtocol } from './diagnosis.js';
import { type Exchange, postAccepted } from './rpc.js';

// What the suite tells the user when a server cannot be tested at all: what was run, what
// came back, and the first lines the server wrote on stderr. Pure over what a channel
// recorded, so it is tested without a server.

/**
 * Why a session never got an initialize result, read from what it received (the channel's
 * diagnosis: non-protocol output, our own request echoed back, nothing at all), from the
 * answer (an error, something else), or from the refusal of the POST that carried it.
 */
export function whyNoInitialize(
  channel: Channel,
  ex: Exchange,
  budgetMs: number,
  /** Where a slow start is plausible (a new stdio process): name the option that allows for one. */
  startHint = false,
): string {
  // A POST refused (401, 404) is the cause, whatever the stream carried: it was never going to answer.
  if (ex.reply === undefined && ex.post?.status !== undefined && !postAccepted(ex.post)) {
    return `initialize got no answer: ${ex.why ?? `the POST was answered HTTP ${ex.post.status}`}`;
  }
  const diagnosis = channel.diagnosis();
  const cannot = ex.reply === undefined ? cannotSpeakProtocol(diagnosis) : undefined;
  if (cannot !== undefined) {
    return `${cannot}; no initialize result: is this a tool server speaking newline-delimited JSON-RPC?`;
  }
  if (ex.reply !== undefined && 'error' in ex.reply) {
    const offered = offeredVersion(channel, ex);
    return `it answered initialize (protocolVersion ${offered}) with an error: ${quote(JSON.stringify(ex.reply))}; nothing else can be tested${versionHint(ex.reply.error, offered, channel.transport)}`;
  }
  if (ex.reply !== undefined) return `it answered initialize with ${quote(JSON.stringify(ex.reply))}`;
  const gone = channel.gone();
  if (gone !== undefined) return `${gone} before answering initialize`;
  const hint = startHint ? `; ${SLOW_START_HINT}` : '';
  return `it did not answer initialize within ${budgetMs} ms (${diagnosis.summary})${hint}`;
}

/** What a user whose server is only slow to start (a package fetched by npx or uvx, a container) can do. */
export const SLOW_START_HINT =
  'a server that takes longer to start (npx or uvx fetching a package, a container) can be given more time with --start-timeout SECONDS';

/**
 * The protocolVersion the initialize of `ex` offered, read from what the channel sent (the
 * run's --protocol, or the transport's default), so the message names what the server refused.
 */
function offeredVersion(channel: Channel, ex: Exchange): string {
  for (const item of channel.peer.items) {
    if (item.direction !== 'sent' || !item.text.includes(METHODS.initialize)) continue;
    const read = parseJsonBounded(item.text);
    const sent = (read.ok ? read.value : undefined) as {
      id?: unknown;
      method?: unknown;
      params?: { protocolVersion?: unknown };
    };
    if (sent?.id !== ex.id || sent.method !== METHODS.initialize) continue;
    if (typeof sent.params?.protocolVersion === 'string') return sent.params.protocolVersion;
  }
  return channel.protocolVersion ?? PROTOCOL_VERSION;
}

/**
 * When the error is about the protocol version, which revisions to try instead: those the
 * server says it supports (MCP's `data.supported`) that wirecheck speaks over this transport,
 * else every other one it speaks there.
 */
function versionHint(answered: unknown, offered: string, transport: Channel['transport']): string {
  // Read leniently: the error's shape is the checks' business, its words are the hint's.
  const error = (answered ?? {}) as { message?: unknown; data?: unknown };
  const said = `${typeof error.message === 'string' ? error.message : ''} ${JSON.stringify(error.data ?? null)}`;
  if (!/version/i.test(said)) return '';
  const speakable = PROTOCOL_REVISIONS.filter(
    (r) => r !== offered && transportRevisionMismatch(transport, r) === undefined,
  );
  const supported = (error.data as { supported?: unknown } | null | undefined)?.supported;
  const named = Array.isArray(supported) ? speakable.filter((r) => supported.includes(r)) : [];
  if (named.length > 0) {
    return `; it says it supports ${named.join(', ')}: test it with --protocol ${named[named.length - 1]}`;
  }
  return `; the error is about the protocol version: another --protocol may work (wirecheck also speaks ${speakable.join(', ')} over ${transport})`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}...` : text);
}

/**
 * The hint for a GET of an --sse URL refused with `status`, when the refusal reads like a
 * Streamable HTTP endpoint's, or ''. Such an endpoint refuses a GET without its session header
 * (4xx, a JSON-RPC error or words about the Mcp-Session-Id) or takes no GET at all (405). An
 * HTTP+SSE server's own POST path asks for `sessionId`/`session_id`, a query parameter: that is
 * not matched, so a user who gave that path is not sent to --http; nor is one refused for want
 * of credentials (401, 403, 407), whatever the body says. `body` may be the first
 * bytes only: a JSON-RPC message is told by its `"jsonrpc": "2.0"`, not by parsing it whole.
 */
export function streamableHttpHint(status: number, body: string): string {
  const streamable =
    status === 405 ||
    (status >= 400 &&
      status < 500 &&
      !AUTH_STATUSES.includes(status) &&
      (JSON_RPC_MEMBER.test(body) || SESSION_HEADER_WORDS.test(body)));
  return streamable ? ': is this a Streamable HTTP server (then use --http with its URL)?' : '';
}

/** A refusal for want of credentials, whatever its body: the hint would hide the cause (--header). */
const AUTH_STATUSES: readonly number[] = [401, 403, 407];
const JSON_RPC_MEMBER = /"jsonrpc"\s*:\s*"2\.0"/;
const SESSION_HEADER_WORDS = /mcp-session-id|session id/i;
