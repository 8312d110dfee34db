import { CheckFailure } from '../../harness/check.js';
import { clip } from '../../protocol/clip.js';
import {
  classifyMessage,
  type JsonRpcErrorResponse,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  request,
} from '../../protocol/jsonrpc/index.js';
import { METHODS, PROTOCOL_VERSION } from '../../protocol/mcp/index.js';
import type { Channel, PostOutcome } from './channel.js';
import { rpcEvidence } from './evidence.js';
import { nextId } from './peer.js';
import { misplacedReply } from './reply-place.js';
import { noteExchange } from './silence.js';
import type { SseChannel } from './sse-channel.js';

/** What one request got: its reply (or why none came) and, over SSE, the POST's response. */
export interface Exchange<Id extends number | string = number> {
  readonly id: Id;
  readonly reply: JsonRpcResponse | undefined;
  readonly why?: string;
  readonly post: PostOutcome | undefined;
  /** Over SSE, where the reply went when it did not come on the stream as event `message`. */
  readonly misplaced?: string;
}

export interface ExchangeOptions {
  /**
   * Whether an unanswered request counts for the silence watch (silence.ts; default true). A
   * check that judges the unanswered requests itself (slow tools among many concurrent
   * requests, say) sends false, so that they do not make the server count as gone meanwhile.
   */
  readonly countSilence?: boolean;
}

/** Send a request with a fresh id and wait up to `ms` for the reply on the channel. */
export async function exchange(
  channel: Channel,
  method: string,
  params: Record<string, unknown> | undefined,
  ms: number,
  options: ExchangeOptions = {},
): Promise<Exchange> {
  return exchangeWithId(channel, nextId(), method, params, ms, options);
}

/**
 * Tell the server to stop work on request `id` (MCP notifications/cancelled): sent for a call the
 * suite stops waiting for, so a server that serves one request at a time can go on.
 */
export function cancelRequest(channel: Channel, id: number | string): Promise<PostOutcome | undefined> {
  return channel.sendText(
    JSON.stringify({ jsonrpc: '2.0', method: METHODS.cancelled, params: { requestId: id } }),
  );
}

/** exchange with a request id of the caller's choosing (a string id, say). */
export async function exchangeWithId<Id extends number | string>(
  channel: Channel,
  id: Id,
  method: string,
  params: Record<string, unknown> | undefined,
  ms: number,
  options: ExchangeOptions = {},
): Promise<Exchange<Id>> {
  // Register before sending: an SDK server can answer on the stream before the POST returns.
  // A line too deep to read that arrives meanwhile is most likely the reply: stop waiting then.
  const deepBefore = tooDeepLines(channel);
  const waiting = channel.peer.wait(
    id,
    ms,
    () =>
      channel.gone() ??
      (tooDeepLines(channel) > deepBefore
        ? 'a message nested too deep to read arrived instead of a reply'
        : undefined),
  );
  const post = await channel.sendText(JSON.stringify(request(id, method, params)), ms);
  if (post !== undefined && !postAccepted(post)) {
    // A POST refused or unanswered will not be answered on the stream: stop waiting soon.
    const shortly = await Promise.race([waiting, delay(Math.min(ms, 300)).then(() => undefined)]);
    if (shortly?.reply !== undefined) return { id, reply: shortly.reply, post };
    const withheld =
      post.headersWithheldFrom === undefined
        ? ''
        : `; the --header values were not sent with it: ${post.headersWithheldFrom} is not the target URL's origin`;
    const how = `${
      post.status === undefined
        ? (post.problem ?? 'no response')
        : `HTTP ${post.status} ${post.body.slice(0, 200)}`
    }${withheld}`;
    // Over Streamable HTTP the POST's response is the answer: none within the budget is no reply.
    const why =
      channel.transport === 'http' && post.status === undefined
        ? `no reply: the POST got ${how}`
        : `the POST was not accepted (${how})`;
    return { id, reply: undefined, why, post };
  }
  const got = await waiting;
  const ex: Exchange<Id> =
    got.reply === undefined
      ? unanswered(channel, { id, reply: undefined, why: got.why, post })
      : { id, reply: got.reply, post };
  // A server that has left several requests in a row unanswered is gone (silence.ts).
  if (options.countSilence !== false) noteExchange(channel, method, ex);
  return ex;
}

/**
 * An unanswered exchange, saying so when its reply went elsewhere than the SSE stream's `message`
 * events: a server answering in the POST body is talking, and every check that waits for a reply
 * would otherwise say only that none came.
 */
function unanswered<Id extends number | string>(channel: Channel, ex: Exchange<Id>): Exchange<Id> {
  if (channel.transport !== 'sse' || typeof ex.id !== 'number') return ex;
  const misplaced = misplacedReply(channel as SseChannel, ex as Exchange);
  if (misplaced === undefined) return ex;
  return {
    ...ex,
    misplaced: misplaced.where,
    why: `${ex.why ?? 'no reply'}; the reply came ${misplaced.where} instead (${clip(misplaced.actual, 160)}), not on the stream as event message as the spec sends it (tool-server.sse.reply-on-stream)`,
  };
}

/**
 * Whether a request was taken by the server: sent on stdio (no POST), or its POST answered 2xx.
 * One refused (4xx, 5xx) will not be answered; one whose POST got no response at all may be,
 * late (a process busy with a slow call). Neither counts for the silence watch.
 */
export function postAccepted(post: PostOutcome | undefined): boolean {
  return post === undefined || (post.status !== undefined && post.status >= 200 && post.status < 300);
}

/**
 * How many received lines or events were nested past the reader's limit so far. Read from
 * the tally, not from `diagnosis()`: the wait asks every 50 ms, and a diagnosis writes out
 * its whole sentence.
 */
function tooDeepLines(channel: Channel): number {
  return channel.peer.wire.count('too-deep');
}

/** Like exchange, but no reply is a CheckFailure carrying the session's messages. */
export async function call(
  channel: Channel,
  method: string,
  params: Record<string, unknown> | undefined,
  ms: number,
): Promise<JsonRpcResponse> {
  const ex = await exchange(channel, method, params, ms);
  if (ex.reply === undefined) {
    throw new CheckFailure(
      `${method} got no reply: ${ex.why}`,
      'a JSON-RPC reply with the request id',
      `no reply; ${channel.diagnosis().summary}`,
      rpcEvidence(`${method} on ${channel.peer.label}`, [channel]),
    );
  }
  return ex.reply;
}

/** A reply that must be a success; an error reply is a CheckFailure. */
export async function callOk(
  channel: Channel,
  method: string,
  params: Record<string, unknown> | undefined,
  ms: number,
): Promise<JsonRpcSuccess> {
  return successOf(channel, method, await call(channel, method, params, ms));
}

/** The reply as a success; an error reply is a CheckFailure. */
export function successOf(channel: Channel, method: string, reply: JsonRpcResponse): JsonRpcSuccess {
  if (!('result' in reply)) {
    throw new CheckFailure(
      `${method} was answered with an error: ${(reply as JsonRpcErrorResponse).error.message}`,
      'a result',
      JSON.stringify(reply),
      rpcEvidence(`${method} on ${channel.peer.label}`, [channel]),
    );
  }
  return reply as JsonRpcSuccess;
}

export const CLIENT_INFO = { name: 'wirecheck', version: '1' } as const;

/** The initialize request's params: MCP 2024-11-05, no client capabilities. */
export function initializeParams(version: string = PROTOCOL_VERSION): Record<string, unknown> {
  return { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO };
}

/**
 * initialize asking for `version` (the run's `--protocol`; by default the channel's version,
 * 2024-11-05 unless the channel says otherwise), then notifications/initialized (MCP lifecycle,
 * every revision). Returns the reply.
 */
export async function initialize(
  channel: Channel,
  ms: number,
  version: string = channel.protocolVersion ?? PROTOCOL_VERSION,
): Promise<Exchange> {
  const ex = await exchange(channel, METHODS.initialize, initializeParams(version), ms);
  if (ex.reply !== undefined && 'result' in ex.reply) {
    await channel.sendText(JSON.stringify({ jsonrpc: '2.0', method: METHODS.initialized }));
  }
  return ex;
}

/** Whether a received value is a well-formed JSON-RPC reply. */
export function isReply(value: unknown): value is JsonRpcResponse {
  const kind = classifyMessage(value).kind;
  return kind === 'success' || kind === 'error';
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
