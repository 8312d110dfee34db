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
    return `it answered initialize (protocolVersion 2024-11-05) with an error: ${quote(JSON.stringify(ex.reply))}; nothing else can be tested`;
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

function quote(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}...` : text);
}
