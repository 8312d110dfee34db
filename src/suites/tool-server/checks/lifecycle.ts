import { type Check, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { JSONRPC_ERRORS, type JsonRpcErrorResponse } from '../../../protocol/jsonrpc/index.js';
import { METHODS, PROTOCOL_VERSION } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { nextId } from '../peer.js';
import {
  call,
  delay,
  type Exchange,
  exchange,
  exchangeWithId,
  initialize,
  initializeParams,
} from '../rpc.js';
import { initializeProblems, versionProblem } from '../rules.js';
import { brief, CHECK_MS, CLAUSES, failWith } from './common.js';

/** A version no server supports: MCP versions are dates from 2024-11-05 on. */
export const UNSUPPORTED_VERSION = '1999-01-01';

/** One initialize on a session of its own, shared by the checks that judge its reply. */
function firstInitialize(
  ctx: ToolServerCtx,
): Promise<{ ex: Exchange; channel: Awaited<ReturnType<ToolServerCtx['connectRaw']>> }> {
  return ctx.shared('initialize', async () => {
    const channel = await ctx.connectRaw('initialize');
    return { ex: await initialize(channel, ctx.firstReplyMs), channel };
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
    id: 'tool-server.initialize.unsupported-version',
    clause: 'MCP 2024-11-05 lifecycle, version negotiation (the spec shows only 2024-11-05)',
    description: `initialize asking for a version the server cannot support (${UNSUPPORTED_VERSION}) is answered with a result naming a version the server does support, not with that version or an error.`,
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2024-11-05: when the server does not support the version the client asks for, it MUST answer with another protocol version it supports (the client then decides whether to go on). Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.connectRaw('unsupported-version');
      try {
        const ex = await exchange(
          channel,
          METHODS.initialize,
          initializeParams(UNSUPPORTED_VERSION),
          ctx.firstReplyMs,
        );
        if (ex.reply === undefined || !('result' in ex.reply)) {
          throw failWith(
            `initialize asking for ${UNSUPPORTED_VERSION} was answered ${ex.reply === undefined ? `with nothing (${ex.why})` : `with an error: ${brief(ex.reply)}`}`,
            'a result whose protocolVersion is a version the server supports (e.g. 2024-11-05)',
            brief(ex.reply),
            [channel],
          );
        }
        const v = (ex.reply.result as { protocolVersion?: unknown } | null)?.protocolVersion;
        if (typeof v !== 'string' || v === UNSUPPORTED_VERSION || !/^\d{4}-\d{2}-\d{2}$/.test(v)) {
          throw failWith(
            `initialize asking for ${UNSUPPORTED_VERSION} was answered with protocolVersion ${JSON.stringify(v)}`,
            `a version the server supports (e.g. ${PROTOCOL_VERSION}), not ${UNSUPPORTED_VERSION}`,
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
    id: 'tool-server.lifecycle.before-initialize',
    clause:
      'MCP 2024-11-05 lifecycle: initialization is the first interaction (not shown in the spec); JSON-RPC 2.0: every request gets a response',
    description:
      'A tools/list sent before initialize still gets a response (an error or, leniently, the result), and initialize on the same session succeeds afterwards.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'JSON-RPC 2.0: every request gets a response, and MCP 2024-11-05: a server answers initialize with its version, capabilities and serverInfo. MCP states no rule for how a server answers a request that comes before initialize (refusing it and serving it are both seen; the official SDK serves it), but such a request must neither go unanswered nor break the session. Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      if (ctx.transport === 'http') {
        throw new CheckSkipped(
          'over Streamable HTTP a session begins with initialize: a request before it has no session (tool-server.http.session-required judges how it is refused)',
        );
      }
      const channel = await ctx.connectRaw('before-initialize');
      try {
        const early = await exchange(channel, METHODS.toolsList, {}, ctx.firstReplyMs);
        const init = await initialize(channel, ctx.replyMs);
        if (early.reply === undefined) {
          throw failWith(
            `tools/list before initialize got no response (${early.why})`,
            'a JSON-RPC error (the session is not initialized) or the result',
            'nothing',
            [channel],
          );
        }
        if (init.reply === undefined || !('result' in init.reply)) {
          throw failWith(
            `after an early tools/list (answered ${brief(early.reply)}), initialize was answered ${init.reply === undefined ? `with nothing (${init.why})` : brief(init.reply)}`,
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
    description: 'A request for a method the server does not have is answered with JSON-RPC error -32601.',
    level: 'must',
    basis: 'protocol-must',
    rule: "JSON-RPC 2.0: every request gets a response, and -32601 Method not found is the error for a method the server does not have (the spec leaves the tool server's codes to JSON-RPC). Every tool server.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await call(channel, 'wirecheck/no-such-method', {}, ctx.replyMs);
      if (
        !('error' in reply) ||
        (reply as JsonRpcErrorResponse).error.code !== JSONRPC_ERRORS.methodNotFound
      ) {
        throw failWith(
          `an unknown method was answered ${brief(reply)}, not with Method not found`,
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
      'Notifications (an unknown one, and notifications/cancelled for a request that is not in flight) get no reply of any kind.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'JSON-RPC 2.0: a notification is a request without an id, and the server MUST NOT reply to it (not even with an error). Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const before = channel.peer.items.length;
      await channel.sendText(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/wirecheck-unknown', params: { n: 1 } }),
      );
      await channel.sendText(
        JSON.stringify({
          jsonrpc: '2.0',
          method: METHODS.cancelled,
          params: { requestId: 987654321, reason: 'wirecheck' },
        }),
      );
      // A ping after them: on an ordered channel any reply to the notifications comes first.
      const ping = await exchange(channel, METHODS.ping, undefined, ctx.replyMs);
      await delay(300);
      const replies = channel.peer.items
        .slice(before)
        .filter((i) => i.direction === 'received' && (i.kind === 'success' || i.kind === 'error'))
        .filter((i) => {
          try {
            const id = (JSON.parse(i.text) as { id?: unknown }).id;
            return id === null || id === undefined || !channel.peer.sentIds.has(id as number);
          } catch {
            return false;
          }
        });
      if (replies.length > 0) {
        throw failWith(
          `${replies.length} reply(ies) to notifications: ${replies.map((r) => r.text.slice(0, 200)).join(' ')}`,
          'no reply to a notification',
          replies.map((r) => r.text.slice(0, 300)).join('\n'),
          [channel],
          replies[0]!.text,
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
];
