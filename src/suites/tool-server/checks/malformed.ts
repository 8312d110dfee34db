import { type Check, CheckFailure } from '../../../harness/check.js';
import { harnessBugOf } from '../../../harness/programmer-error.js';
import { JSONRPC_ERRORS, type JsonRpcResponse } from '../../../protocol/jsonrpc/index.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import type { Channel, PostOutcome } from '../channel.js';
import type { ToolServerCtx } from '../context.js';
import { rpcEvidence } from '../evidence.js';
import { delay, type Exchange, exchange } from '../rpc.js';
import { brief, CHECK_MS, CLAUSES } from './common.js';

/** How long an answer to malformed input is waited for before the server is pinged. */
const ANSWER_MS = 1000;

const INVALID_JSON = '{"jsonrpc": "2.0", "id": 1, "method": "ping", ';
/** A request without `jsonrpc`: valid JSON, not a JSON-RPC 2.0 message. */
const WRONG_ENVELOPE = '{"id": 424242, "method": "ping"}';

interface Probe {
  readonly post: PostOutcome | undefined;
  /** Replies with a null id (or the envelope's id) that came after the malformed input. */
  readonly answers: { code: number; text: string }[];
  /** The ping sent after the malformed input. */
  readonly after: Exchange;
}

interface MalformedRun {
  readonly channel: Channel;
  readonly invalidJson: Probe;
  /** The session of the wrong envelope: a fresh one when the unparseable line ended the first. */
  readonly envelopeChannel: Channel;
  readonly wrongEnvelope: Probe;
}

async function probe(
  ctx: ToolServerCtx,
  channel: Channel,
  text: string,
  envelopeId?: number,
): Promise<Probe> {
  // Watched, not read from the items: a chatty session may be past the items' cap by now.
  const watch = channel.peer.watch(({ value }) => {
    if (typeof value !== 'object' || value === null || !('error' in value)) return undefined;
    const v = value as { id?: unknown; error?: { code?: unknown } | null };
    if (v.id !== null && v.id !== envelopeId) return undefined;
    // Not Number(code): a code of {"toString": 1} throws there, in the stream's data handler.
    const code = v.error?.code;
    return { code: typeof code === 'number' ? code : Number.NaN, text: brief(v as JsonRpcResponse) };
  });
  try {
    const post = await channel.sendText(text);
    const deadline = performance.now() + ANSWER_MS;
    while (watch.count === 0 && performance.now() < deadline && channel.gone() === undefined) await delay(25);
    const answers = [...watch.found];
    const after = await exchange(channel, METHODS.ping, undefined, ctx.replyMs);
    return { post, answers, after };
  } finally {
    watch.stop();
  }
}

/**
 * A session of its own (a fresh process on stdio, a fresh stream on SSE) that gets an
 * unparseable line and a wrong envelope, each followed by a ping.
 */
function malformedRun(ctx: ToolServerCtx): Promise<MalformedRun> {
  return ctx.shared('malformed', async () => {
    const channel = await ctx.connect('malformed');
    const invalidJson = await probe(ctx, channel, INVALID_JSON);
    // A server may end a session on unparseable input (the spec allows it on stdio):
    // malformed.survives judges that; the wrong envelope then gets a session that can answer.
    const ended = invalidJson.after.reply === undefined || channel.gone() !== undefined;
    // A server that cannot open another session (it exited) keeps the ended one: no answer. A
    // bug of wirecheck met on the way is no such thing: it goes on to the harness.
    const envelopeChannel = ended
      ? await ctx.connect('malformed-envelope').catch((e: unknown) => {
          const bug = harnessBugOf(e);
          if (bug !== undefined) throw bug;
          return channel;
        })
      : channel;
    const wrongEnvelope = await probe(ctx, envelopeChannel, WRONG_ENVELOPE, 424242);
    return { channel, invalidJson, envelopeChannel, wrongEnvelope };
  });
}

/** On SSE an HTTP 4xx refusing the body is an answer too (the SDK answers 400 "Invalid message"). */
function refusedByHttp(p: Probe): boolean {
  return p.post?.status !== undefined && p.post.status >= 400 && p.post.status < 500;
}

function describeProbe(p: Probe): string {
  const http = p.post === undefined ? '' : `HTTP ${p.post.status ?? `none (${p.post.problem})`}; `;
  return `${http}${p.answers.length === 0 ? 'no JSON-RPC answer' : p.answers.map((a) => a.text).join(' ')}`;
}

export const malformedChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.malformed.survives',
    clause: `${CLAUSES.jsonrpc}; ${CLAUSES.errors}`,
    description:
      'After an unparseable message and a message that is not JSON-RPC 2.0, the server still answers a ping on the same session.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'No rule says a server must keep a session alive after input that is not JSON-RPC (the spec lets a peer end a stdio connection on a non-JSON line); a server that goes on serving is more robust, so this warns.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const run = await malformedRun(ctx);
      for (const [what, p] of [
        ['unparseable JSON', run.invalidJson],
        ['a request without "jsonrpc": "2.0"', run.wrongEnvelope],
      ] as const) {
        if (p.after.reply === undefined) {
          throw new CheckFailure(
            `after ${what} the server stopped answering: ${p.after.why}`,
            'the ping after it answered',
            'nothing',
            rpcEvidence('malformed input, then ping', [...new Set([run.channel, run.envelopeChannel])]),
          );
        }
      }
    },
  },
  {
    id: 'tool-server.malformed.parse-error',
    clause: `${CLAUSES.jsonrpc}: Parse error -32700 (the spec leaves the tool server's codes "not shown")`,
    description:
      'Unparseable JSON is answered with JSON-RPC error -32700 (id null), or on SSE refused with an HTTP 4xx (should: the official SDK answers nothing on stdio).',
    level: 'should',
    basis: 'protocol-should',
    rule: "JSON-RPC 2.0 describes the answer to unparseable input as error -32700 with id null, but the spec leaves the tool server's error codes unshown and the official SDK answers nothing on stdio; a warning.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, invalidJson } = await malformedRun(ctx);
      if (invalidJson.answers.some((a) => a.code === JSONRPC_ERRORS.parseError) || refusedByHttp(invalidJson))
        return;
      throw new CheckFailure(
        `unparseable JSON was not answered with a parse error (${describeProbe(invalidJson)})`,
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,...}}',
        describeProbe(invalidJson),
        rpcEvidence('unparseable JSON', [channel]),
      );
    },
  },
  {
    id: 'tool-server.malformed.invalid-request',
    clause: `${CLAUSES.jsonrpc}: Invalid Request -32600`,
    description:
      'A JSON object that is not a JSON-RPC 2.0 message is answered with error -32600, or on SSE refused with an HTTP 4xx.',
    level: 'should',
    basis: 'protocol-should',
    rule: "JSON-RPC 2.0 describes the answer to a message that is not a valid request as error -32600; the spec leaves the tool server's error codes unshown, so a warning.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { envelopeChannel, wrongEnvelope } = await malformedRun(ctx);
      if (
        wrongEnvelope.answers.some((a) => a.code === JSONRPC_ERRORS.invalidRequest) ||
        refusedByHttp(wrongEnvelope)
      )
        return;
      throw new CheckFailure(
        `a message without "jsonrpc": "2.0" was not answered with Invalid Request (${describeProbe(wrongEnvelope)})`,
        'error code -32600',
        describeProbe(wrongEnvelope),
        rpcEvidence('wrong envelope', [envelopeChannel]),
      );
    },
  },
];
