import { type Check, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { clip } from '../../../protocol/clip.js';
import {
  JSONRPC_ERRORS,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcResponse,
} from '../../../protocol/jsonrpc/index.js';
import { looksLikeVersion, METHODS, revisionsFrom, revisionsUntil } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { nextId } from '../peer.js';
import { replyInPostBody } from '../reply-place.js';
import {
  call,
  delay,
  type Exchange,
  exchange,
  exchangeWithId,
  initialize,
  initializeParams,
} from '../rpc.js';
import { answeredIds, initializeProblems, versionProblem } from '../rules.js';
import { revisionOf } from '../target.js';
import { brief, CHECK_MS, CLAUSES, failWith } from './common.js';
import { listBeforeInitialize } from './early-list.js';

/** A version no server supports: MCP versions are dates from 2024-11-05 on. */
export const UNSUPPORTED_VERSION = '1999-01-01';

/** How long after the notifications (and a ping answered) a reply to them would still be seen. */
const NO_REPLY_WINDOW_MS = 300;

/**
 * One initialize on a session of its own, shared by the checks that judge its reply. Over SSE
 * and Streamable HTTP the session is closed once answered: it would hold one of a capped
 * server's sessions until the suite ends. A stdio process is left running, so that one that
 * died is told as the cause of what its checks saw (failWith), not a process wirecheck ended.
 */
function firstInitialize(
  ctx: ToolServerCtx,
): Promise<{ ex: Exchange; channel: Awaited<ReturnType<ToolServerCtx['connectRaw']>> }> {
  return ctx.shared('initialize', async () => {
    const channel = await ctx.connectRaw('initialize');
    try {
      return { ex: await initialize(channel, ctx.firstReplyMs, revisionOf(ctx.target)), channel };
    } finally {
      if (channel.transport !== 'stdio') await channel.close();
    }
  });
}

async function initializeResult(ctx: ToolServerCtx) {
  const { ex, channel } = await firstInitialize(ctx);
  if (ex.reply === undefined || !('result' in ex.reply)) {
    throw failWith(
      `initialize was not answered with a result (${ex.why ?? brief(ex.reply)})`,
      'an initialize result',
      brief(ex.reply),
      [channel],
    );
  }
  return { ex, channel, result: ex.reply.result };
}

/** initialize asking for a version no server supports, on a session of its own, shared by the checks that judge it. */
function unsupportedExchange(
  ctx: ToolServerCtx,
): Promise<{ ex: Exchange; channel: Awaited<ReturnType<ToolServerCtx['connectRaw']>> }> {
  return ctx.shared('unsupported-version', async () => {
    const channel = await ctx.connectRaw('unsupported-version');
    try {
      const ex = await exchange(
        channel,
        METHODS.initialize,
        initializeParams(UNSUPPORTED_VERSION),
        ctx.firstReplyMs,
      );
      return { ex, channel };
    } finally {
      await channel.close();
    }
  });
}

/**
 * The versions an error answer to an unsupported version lists as supported, in the shape of
 * MCP's own example (-32602 with data.supported and data.requested); undefined when the error
 * lists none that looks like a version.
 */
function supportedListed(reply: JsonRpcResponse): string[] | undefined {
  const error = (reply as Partial<JsonRpcErrorResponse>).error;
  const supported = (error?.data as { supported?: unknown } | null | undefined)?.supported;
  if (!Array.isArray(supported)) return undefined;
  const versions = supported.filter((v): v is string => looksLikeVersion(v) && v !== UNSUPPORTED_VERSION);
  return versions.length > 0 ? versions : undefined;
}

/** The version the server offered to that request, when it offered one that looks like a version. */
async function unsupportedAnswer(ctx: ToolServerCtx): Promise<{ version?: string; why: string }> {
  const { ex } = await unsupportedExchange(ctx);
  if (ex.reply === undefined) return { why: `no reply: ${ex.why}` };
  if (!('result' in ex.reply)) {
    // The spec's example error names what the server supports: ask for the first of those.
    const listed = supportedListed(ex.reply);
    return listed === undefined ? { why: `an error: ${brief(ex.reply)}` } : { version: listed[0], why: '' };
  }
  const v = (ex.reply.result as { protocolVersion?: unknown } | null)?.protocolVersion;
  if (!looksLikeVersion(v) || v === UNSUPPORTED_VERSION)
    return { why: `protocolVersion ${JSON.stringify(v)}` };
  return { version: v, why: '' };
}

export const lifecycleChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.initialize.result-shape',
    clause: `${CLAUSES.objects} (initialize result)`,
    description:
      'initialize is answered with protocolVersion (string), capabilities holding a `tools` object, and serverInfo {name, version} strings.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: the initialize result has protocolVersion (string), capabilities (an object; a server offering tools has a `tools` object in it) and serverInfo {name, version} (strings). Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { ex, channel } = await initializeResult(ctx);
      const problems = initializeProblems((ex.reply as { result: unknown }).result);
      if (problems.length > 0) {
        throw failWith(
          `the initialize result is malformed: ${problems.join('; ')}`,
          'protocolVersion, capabilities.tools, serverInfo.name/version',
          brief(ex.reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.initialize.protocol-version',
    clause: `${CLAUSES.versioning} (tool-server protocol version 2024-11-05); MCP 2024-11-05 lifecycle (version negotiation)`,
    description: 'A client asking for 2024-11-05 is answered with protocolVersion 2024-11-05.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec fixes the tool-server protocol at 2024-11-05, and MCP 2024-11-05 says a server that supports the version a client asks for MUST answer with that same version. Every tool server.',
    revisions: revisionsUntil('2024-11-05'),
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { ex, channel } = await initializeResult(ctx);
      // Over Streamable HTTP the suite offers a later revision (offered-version.ts), which the
      // spec does not fix: any revision answered is negotiation; only a non-version fails.
      const problem = versionProblem(
        (ex.reply as { result: unknown }).result,
        ctx.offeredVersion,
        ctx.transport !== 'http',
      );
      if (problem !== undefined) {
        throw failWith(
          `asked for ${ctx.offeredVersion}, the server ${problem}`,
          ctx.offeredVersion,
          brief(ex.reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.initialize.requested-revision',
    clause:
      'MCP lifecycle, version negotiation (2025-03-26 and later; --protocol names the revision the server is tested as)',
    description: 'A client asking for the revision of --protocol is answered with that same protocolVersion.',
    level: 'must',
    basis: 'contract',
    rule: "With --protocol R the run tests the server as a server of MCP revision R, and every revision's lifecycle says a server that supports the requested version MUST answer with that same version; a server that answers another revision (a date, whether wirecheck knows it or not) does not speak R and cannot be tested as R (exit 2; run it with the --protocol it answers), and one that answers a protocolVersion that is no date at all fails here. Every tool server run under a later revision than the spec's.",
    revisions: revisionsFrom('2025-03-26'),
    timeoutMs: CHECK_MS,
    async run(ctx) {
      if (ctx.target.protocol === undefined) {
        // Over Streamable HTTP the suite offers 2025-03-26 by default; a server may answer any revision
        // it supports to that offer (see initialize.supported-version-echoed). Only --protocol says which.
        throw new CheckSkipped(
          `the run names no revision (--protocol): ${revisionOf(ctx.target)} is only the transport's default offer`,
        );
      }
      const { ex, channel } = await initializeResult(ctx);
      const asked = revisionOf(ctx.target);
      const v = (ex.reply as { result: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (v !== asked) {
        throw failWith(
          `asked for ${asked} (--protocol), the server answered protocolVersion ${JSON.stringify(v)}: it does not speak ${asked}`,
          asked,
          brief(ex.reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.initialize.supported-version-echoed',
    clause: 'MCP lifecycle, version negotiation (every revision)',
    description:
      'The version the server offered to a client asking for one it does not know is answered as is when a client asks for it.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP (every revision): a server answers a version it does not support with another version it supports, and a server that supports the requested version MUST answer with that same version. So the version a server offers when asked for an unknown one is one it supports, and asking for it must get it back. Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const offered = await unsupportedAnswer(ctx);
      if (offered.version === undefined) {
        throw new NotExercised(
          `initialize asking for ${UNSUPPORTED_VERSION} got no version to ask for again (${offered.why})`,
        );
      }
      const channel = await ctx.connectRaw('offered-version');
      try {
        const ex = await exchange(
          channel,
          METHODS.initialize,
          initializeParams(offered.version),
          ctx.firstReplyMs,
        );
        if (ex.reply === undefined || !('result' in ex.reply)) {
          throw failWith(
            `initialize asking for ${offered.version} (the version the server itself offered) was answered ${ex.reply === undefined ? `with nothing (${ex.why})` : `with an error: ${brief(ex.reply)}`}`,
            `a result with protocolVersion ${offered.version}`,
            brief(ex.reply),
            [channel],
          );
        }
        const v = (ex.reply.result as { protocolVersion?: unknown } | null)?.protocolVersion;
        if (v !== offered.version) {
          throw failWith(
            `asked for ${UNSUPPORTED_VERSION}, the server offered ${offered.version}; asked for ${offered.version}, it answered ${JSON.stringify(v)}`,
            offered.version,
            brief(ex.reply),
            [channel],
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
  {
    id: 'tool-server.initialize.unsupported-version',
    clause: 'MCP 2024-11-05 lifecycle, version negotiation (the spec shows only 2024-11-05)',
    description: `initialize asking for a version the server cannot support (${UNSUPPORTED_VERSION}) is answered with a version the server does support: a result naming one, or an error whose data lists them (the spec's example); not with that version, a bare error or nothing.`,
    level: 'must',
    basis: 'protocol-must',
    rule: "MCP 2024-11-05 (and 2025-11-25, in the same words): when the server does not support the version the client asks for, it MUST answer with another protocol version it supports (the client then decides whether to go on). The same page's example answers with error -32602 whose data lists the supported versions, so that answer meets the rule too (initialize.unsupported-version-result prefers a result). Every tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { ex, channel } = await unsupportedExchange(ctx);
      if (ex.reply !== undefined && !('result' in ex.reply) && supportedListed(ex.reply) !== undefined)
        return;
      if (ex.reply === undefined || !('result' in ex.reply)) {
        throw failWith(
          `initialize asking for ${UNSUPPORTED_VERSION} was answered ${ex.reply === undefined ? `with nothing (${ex.why})` : `with an error that lists no supported version (error.data.supported): ${brief(ex.reply)}`}`,
          `a result whose protocolVersion is a version the server supports (e.g. ${revisionOf(ctx.target)}), or an error whose data.supported lists them`,
          brief(ex.reply),
          [channel],
        );
      }
      const v = (ex.reply.result as { protocolVersion?: unknown } | null)?.protocolVersion;
      if (v === UNSUPPORTED_VERSION || !looksLikeVersion(v)) {
        throw failWith(
          `initialize asking for ${UNSUPPORTED_VERSION} was answered with protocolVersion ${JSON.stringify(v)}`,
          `a version the server supports (e.g. ${revisionOf(ctx.target)}), not ${UNSUPPORTED_VERSION}`,
          brief(ex.reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.initialize.unsupported-version-result',
    clause: 'MCP 2024-11-05 lifecycle, version negotiation (the spec shows only 2024-11-05)',
    description: `initialize asking for a version the server cannot support (${UNSUPPORTED_VERSION}) is answered with a result naming a version it supports, rather than with the error the spec shows as an example.`,
    level: 'should',
    basis: 'protocol-should',
    rule: "MCP 2024-11-05 (and 2025-11-25): a server that does not support the requested version MUST answer with another version it supports, and a client then decides whether to go on; yet the same page's example answers with error -32602 listing the supported versions. With the spec showing both, an error that lists them warns: a result lets a client that can speak the offered version go on at once. Every tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { ex, channel } = await unsupportedExchange(ctx);
      if (ex.reply !== undefined && 'result' in ex.reply) return;
      if (ex.reply === undefined) {
        throw new NotExercised(
          `initialize asking for ${UNSUPPORTED_VERSION} got no reply (${ex.why}): initialize.unsupported-version judges that`,
        );
      }
      const listed = supportedListed(ex.reply);
      if (listed === undefined) {
        throw new NotExercised(
          `initialize asking for ${UNSUPPORTED_VERSION} was answered with an error listing no supported version: initialize.unsupported-version judges that`,
        );
      }
      throw failWith(
        `initialize asking for ${UNSUPPORTED_VERSION} was answered with an error listing the supported versions (${listed.join(', ')}), not with a result naming one`,
        `a result whose protocolVersion is one of ${listed.join(', ')}`,
        brief(ex.reply),
        [channel],
      );
    },
  },
  {
    id: 'tool-server.lifecycle.before-initialize',
    clause:
      'MCP 2024-11-05 lifecycle: initialization is the first interaction (not shown in the spec); JSON-RPC 2.0: every request gets a response',
    description:
      'A tools/list sent before initialize still gets a response (an error, an HTTP 4xx refusal of its POST or, leniently, the result; at once or held until initialize was answered), and initialize on the same session succeeds afterwards (a server that ends the session after answering is not judged on that).',
    level: 'must',
    basis: 'protocol-must',
    rule: 'JSON-RPC 2.0: every request gets a response, and MCP 2024-11-05: a server answers initialize with its version, capabilities and serverInfo. MCP states no rule for how a server answers a request that comes before initialize (refusing it and serving it are both seen; the official SDK serves it; a server may also hold it until the session is initialized, so one unanswered within its budget is waited for again once initialize was answered), but such a request must neither go unanswered nor break the session. Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      if (ctx.transport === 'http') {
        throw new CheckSkipped(
          'over Streamable HTTP a session begins with initialize: a request before it has no session (tool-server.http.session-required judges how it is refused)',
        );
      }
      const channel = await ctx.connectRaw('before-initialize');
      try {
        const { early, init } = await listBeforeInitialize(ctx, channel);
        // Over SSE a POST refused with a 4xx is an answer: the message was not taken.
        const status = early.post?.status;
        const refused = status !== undefined && status >= 400 && status < 500;
        const answer =
          early.reply !== undefined ? brief(early.reply) : refused ? `HTTP ${status}` : undefined;
        if (answer === undefined) {
          throw failWith(
            `tools/list before initialize got no response (${early.why})`,
            'a JSON-RPC error (the session is not initialized) or the result',
            'nothing',
            [channel],
          );
        }
        if (init.reply === undefined && channel.gone() !== undefined) {
          throw new NotExercised(
            `the server answered the early tools/list (${answer}) and then ended the session (${channel.gone()}): MCP states no rule that a session outlives a request out of order, so there was no initialize to judge`,
          );
        }
        if (init.reply === undefined || !('result' in init.reply)) {
          throw failWith(
            `after an early tools/list (answered ${answer}), initialize was answered ${init.reply === undefined ? `with nothing (${init.why})` : brief(init.reply)}`,
            'an initialize result',
            brief(init.reply),
            [channel],
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
  {
    id: 'tool-server.ping.answered',
    clause: 'MCP 2024-11-05 ping (spec "Tool-server SSE events": a JSON-RPC ping request as keep-alive)',
    description: 'A ping request is answered with an empty result.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2024-11-05: the receiver of a ping request MUST answer promptly with an empty result; the spec names ping among the keep-alives. Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await call(channel, METHODS.ping, undefined, ctx.replyMs);
      if (!('result' in reply)) {
        throw failWith(`ping was answered with an error: ${brief(reply)}`, 'a result {}', brief(reply), [
          channel,
        ]);
      }
    },
  },
  {
    id: 'tool-server.jsonrpc.unknown-method',
    clause: `${CLAUSES.jsonrpc}: Method not found`,
    description:
      'A request for a method the server does not have is answered with a JSON-RPC error, not a result.',
    level: 'must',
    basis: 'protocol-must',
    rule: "JSON-RPC 2.0: every request gets a response, and a call that cannot succeed is answered with an error object (its code an integer), never a result. Which code is judged by jsonrpc.unknown-method-code: the spec leaves the tool server's codes unshown. Every tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await call(channel, 'wirecheck/no-such-method', {}, ctx.replyMs);
      // A reply with a result is a success whatever else it holds (`"error": null` too).
      const code = 'result' in reply ? undefined : (reply as JsonRpcErrorResponse).error.code;
      if (!Number.isInteger(code)) {
        throw failWith(
          `an unknown method was answered ${brief(reply)}, not with an error`,
          'a JSON-RPC error (code -32601, Method not found)',
          brief(reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.jsonrpc.unknown-method-code',
    clause: `${CLAUSES.jsonrpc}: Method not found`,
    description: 'The error for a method the server does not have is -32601 (Method not found).',
    level: 'should',
    basis: 'protocol-should',
    rule: "JSON-RPC 2.0 describes -32601 as the error for a method that does not exist, but states no MUST for the code, and the spec leaves the tool server's error codes unshown (the Python SDK answers -32602); a warning, like the malformed-input codes.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await call(channel, 'wirecheck/no-such-method', {}, ctx.replyMs);
      if ('result' in reply) {
        throw new NotExercised(
          `an unknown method was answered ${brief(reply)}, with no error to read a code from (jsonrpc.unknown-method judges that)`,
        );
      }
      const { code } = (reply as JsonRpcErrorResponse).error;
      if (code !== JSONRPC_ERRORS.methodNotFound) {
        throw failWith(
          `an unknown method was answered with error code ${JSON.stringify(code)}, not -32601 (Method not found)`,
          'error code -32601',
          brief(reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.jsonrpc.notification-no-reply',
    clause: `${CLAUSES.jsonrpc}: notifications`,
    description:
      'Notifications (an unknown one, and notifications/cancelled for a request that is not in flight) get no reply of any kind: none on the session, nor, over SSE, in the POST response body.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'JSON-RPC 2.0: a notification is a request without an id, and the server MUST NOT reply to it (not even with an error). Every tool server.',
    timeoutMs: CHECK_MS,
    prescribedWaitMs: NO_REPLY_WINDOW_MS,
    async run(ctx) {
      const channel = await ctx.main();
      // A reply to no request sent: watched, not read from the items, which a chatty session
      // may have filled by now.
      const replies = channel.peer.watch(({ kind, value, text }) => {
        if (kind !== 'success' && kind !== 'error') return undefined;
        const id = (value as { id?: unknown }).id;
        if (id !== null && id !== undefined && channel.peer.sentIds.has(id as JsonRpcId)) return undefined;
        return clip(text, 300);
      });
      // Over SSE only the stream's message events reach the peer: a reply put in a
      // notification's POST response body is read from there (Streamable HTTP's answers reach it).
      const inBodies: string[] = [];
      const send = async (text: string) => {
        const post = await channel.sendText(text);
        if (channel.transport === 'sse' && replyInPostBody(post)) {
          inBodies.push(`in the POST response body (HTTP ${post?.status}): ${clip(post?.body ?? '', 300)}`);
        }
      };
      let ping: Exchange;
      try {
        await send(
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/wirecheck-unknown', params: { n: 1 } }),
        );
        await send(
          JSON.stringify({
            jsonrpc: '2.0',
            method: METHODS.cancelled,
            params: { requestId: 987654321, reason: 'wirecheck' },
          }),
        );
        // A ping after them: on an ordered channel any reply to the notifications comes first.
        ping = await exchange(channel, METHODS.ping, undefined, ctx.replyMs);
        await delay(NO_REPLY_WINDOW_MS);
      } finally {
        replies.stop();
      }
      const first = replies.found[0];
      if (first !== undefined || inBodies.length > 0) {
        const found = [...replies.found, ...inBodies];
        throw failWith(
          `${replies.count + inBodies.length} reply(ies) to notifications: ${found.map((r) => r.slice(0, 200)).join(' ')}`,
          'no reply to a notification',
          found.join('\n'),
          [channel],
          first?.slice(0, 200),
        );
      }
      if (ping.reply === undefined)
        throw new NotExercised(
          `the ping after the notifications got no reply (${ping.why}): nothing to judge by`,
        );
    },
  },
  {
    id: 'tool-server.jsonrpc.string-id',
    clause: `${CLAUSES.jsonrpc}: id (the spec's table shows integers; JSON-RPC and MCP allow strings)`,
    description:
      'Requests with string ids (one of them made of digits) are answered with the very same string id.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'JSON-RPC 2.0 (and MCP 2024-11-05): a request id is a string or a number, and the response MUST carry the same id, of the same type. Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const n = nextId();
      for (const id of [`wirecheck-${n}-ü`, `${n}`]) {
        const ex = await exchangeWithId(channel, id, METHODS.ping, undefined, ctx.replyMs);
        if (ex.reply === undefined) {
          const stray = channel.peer.strayReplies.find((r) => String(r.id) === id);
          throw failWith(
            stray === undefined
              ? `ping with id ${JSON.stringify(id)} got no reply with that id (${ex.why})`
              : `ping with id ${JSON.stringify(id)} was answered with id ${JSON.stringify(stray.id)}`,
            `a reply with "id": ${JSON.stringify(id)}`,
            stray === undefined ? 'nothing' : brief(stray),
            [channel],
          );
        }
      }
    },
  },
  {
    id: 'tool-server.jsonrpc.batch-answered',
    clause: 'MCP 2025-03-26 basic protocol, Batching (removed again in 2025-06-18)',
    description:
      'A JSON-RPC batch of two pings, sent as one message, gets a response for each of them (in one array, as JSON-RPC 2.0 answers a batch, or one by one).',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: implementations MAY send JSON-RPC batches but MUST support receiving them (2025-06-18 removed batching, so the check holds in 2025-03-26 only). Every tool server offered 2025-03-26 that answers initialize with 2025-03-26; one that answers a later revision it supports instead is not judged.',
    revisions: ['2025-03-26'],
    timeoutMs: CHECK_MS,
    async run(ctx) {
      // The offer is not the session's revision: a server that does not support 2025-03-26
      // MUST answer another version it supports, and one without batching owes no batch.
      if (ctx.negotiatedVersion !== '2025-03-26') {
        throw new NotExercised(
          `the server answered initialize (offered 2025-03-26) with protocolVersion ${JSON.stringify(ctx.negotiatedVersion)}: batching is a rule of 2025-03-26 only, and the session speaks another revision`,
        );
      }
      const channel = await ctx.main();
      const ids = [`wirecheck-batch-${nextId()}`, `wirecheck-batch-${nextId()}`];
      const batch = ids.map((id) => ({ jsonrpc: '2.0', id, method: METHODS.ping }));
      // Watched, not read from the items, which a chatty session may have filled by now: every
      // text is quoted, and the ids of the batch it answers are noted.
      const answered = new Set<string | number>();
      const arrived = channel.peer.watch(({ value, text }) => {
        for (const id of answeredIds(value)) if (ids.includes(id as string)) answered.add(id);
        return clip(text, 300);
      });
      try {
        const post = await channel.sendText(JSON.stringify(batch), ctx.replyMs);
        // A POST answered with an error status was not accepted (a Streamable HTTP server that
        // cannot accept the input MUST answer so): no response to it can follow, so none is
        // waited for. Its body, a JSON-RPC error, was read before sendText settled.
        const refusedWith = post?.status !== undefined && post.status >= 400 ? post.status : undefined;
        const deadline = performance.now() + ctx.replyMs;
        while (
          refusedWith === undefined &&
          ids.some((id) => !answered.has(id)) &&
          channel.gone() === undefined &&
          performance.now() < deadline
        )
          await delay(20);
        const missing = ids.filter((id) => !answered.has(id));
        if (missing.length > 0) {
          const how =
            post === undefined
              ? ''
              : ` (the POST got ${post.status === undefined ? (post.problem ?? 'no response') : `HTTP ${post.status}`})`;
          const when =
            refusedWith === undefined
              ? ` within ${ctx.replyMs} ms${how}`
              : `: the POST was refused with HTTP ${refusedWith}, so none can follow`;
          const more = arrived.count > arrived.found.length ? `\n(${arrived.count} in all)` : '';
          throw failWith(
            `a batch of ${ids.length} pings got no response for ${missing.join(', ')}${when}`,
            `a response for each of ${ids.join(', ')}`,
            arrived.found.length === 0 ? 'nothing' : `${arrived.found.join('\n')}${more}`,
            [channel],
          );
        }
      } finally {
        arrived.stop();
      }
    },
  },
];
