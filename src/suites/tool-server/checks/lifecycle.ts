import { type Check, CheckFailure } from '../../../harness/check.js';
import { JSONRPC_ERRORS, type JsonRpcErrorResponse } from '../../../protocol/jsonrpc/index.js';
import { METHODS, PROTOCOL_VERSION } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { call, type Exchange, initialize } from '../rpc.js';
import { initializeProblems, versionProblem } from '../rules.js';
import { brief, CHECK_MS, CLAUSES, failWith } from './common.js';

/** One initialize on a session of its own, shared by the checks that judge its reply. */
function firstInitialize(
  ctx: ToolServerCtx,
): Promise<{ ex: Exchange; channel: Awaited<ReturnType<ToolServerCtx['connectRaw']>> }> {
  return ctx.shared('initialize', async () => {
    const channel = await ctx.connectRaw('initialize');
    return { ex: await initialize(channel, ctx.replyMs), channel };
  });
}

export const lifecycleChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.initialize.result-shape',
    clause: `${CLAUSES.objects} (initialize result)`,
    description:
      'initialize is answered with protocolVersion (string), capabilities holding a `tools` object, and serverInfo {name, version} strings.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { ex, channel } = await firstInitialize(ctx);
      if (ex.reply === undefined || !('result' in ex.reply)) {
        throw failWith(
          `initialize was not answered with a result (${ex.why ?? 'an error'})`,
          'an initialize result',
          brief(ex.reply),
          [channel],
        );
      }
      const problems = initializeProblems(ex.reply.result);
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
    clause: `${CLAUSES.versioning} (tool-server protocol version 2024-11-05)`,
    description:
      'A client asking for 2024-11-05 is answered with 2024-11-05 (should: MCP negotiation lets a server answer another version it supports).',
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { ex, channel } = await firstInitialize(ctx);
      if (ex.reply === undefined || !('result' in ex.reply)) {
        throw failWith('initialize was not answered with a result', 'an initialize result', brief(ex.reply), [
          channel,
        ]);
      }
      const problem = versionProblem(ex.reply.result);
      if (problem !== undefined) {
        throw new CheckFailure(
          `asked for ${PROTOCOL_VERSION}, the server ${problem}`,
          PROTOCOL_VERSION,
          brief(ex.reply),
        );
      }
    },
  },
  {
    id: 'tool-server.ping.answered',
    clause: 'MCP 2024-11-05 ping (spec "Tool-server SSE events": a JSON-RPC ping request as keep-alive)',
    description: 'A ping request is answered with an empty result.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await call(channel, METHODS.ping, undefined, ctx.replyMs);
      if (!('result' in reply)) {
        throw failWith('ping was answered with an error', 'a result {}', brief(reply), [channel]);
      }
    },
  },
  {
    id: 'tool-server.jsonrpc.unknown-method',
    clause: `${CLAUSES.jsonrpc}: Method not found`,
    description: 'A request for a method the server does not have is answered with JSON-RPC error -32601.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await call(channel, 'wirecheck/no-such-method', {}, ctx.replyMs);
      if (
        !('error' in reply) ||
        (reply as JsonRpcErrorResponse).error.code !== JSONRPC_ERRORS.methodNotFound
      ) {
        throw failWith(
          'an unknown method was not answered with Method not found',
          'error code -32601',
          brief(reply),
          [channel],
        );
      }
    },
  },
];
