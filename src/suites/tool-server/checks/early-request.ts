import { type Check, CheckSkipped, NotExercised } from '../../../harness/check.js';
import type { ToolServerCtx } from '../context.js';
import { brief, CHECK_MS, failWith } from './common.js';
import { listBeforeInitialize } from './early-list.js';

/**
 * The should-level companion of `lifecycle.before-initialize` (which asks only that an early
 * request is answered): the answer is an error, not the result.
 */
export const earlyRequestChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.lifecycle.before-initialize-refused',
    clause:
      'MCP 2024-11-05 lifecycle: "The initialization phase MUST be the first interaction between client and server"; the client "SHOULD NOT send requests other than pings before the server has responded to the initialize request"',
    description:
      'stdio: a tools/list sent before initialize is answered with a JSON-RPC error (the session is not initialized), not served, at once or once initialize was answered (should: the official SDK serves it).',
    level: 'should',
    basis: 'protocol-should',
    rule: "MCP 2024-11-05: initialization MUST be the first interaction, and a client SHOULD NOT send requests other than pings before initialize is answered. A server that serves such a request hides that fault of its clients, so it should refuse it with an error; MCP states no such rule for the server (the official SDK serves the request), so serving it warns. Every stdio server; not SSE, where a client whose event stream reconnects (the official SDK's EventSource does) gets a new session and goes on without a new initialize, so serving it there keeps such clients working.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      if (ctx.transport !== 'stdio') {
        throw new CheckSkipped(
          'stdio only: over SSE a reconnecting client goes on without a new initialize, so serving its requests is right',
        );
      }
      const channel = await ctx.connectRaw('before-initialize-refused');
      try {
        const { early, deferred } = await listBeforeInitialize(ctx, channel);
        if (early.reply === undefined) {
          // Unanswered is lifecycle.before-initialize's failure; here there is no answer to judge.
          throw new NotExercised(
            'tools/list before initialize got no response (lifecycle.before-initialize says why)',
          );
        }
        if ('result' in early.reply) {
          throw failWith(
            `tools/list sent before initialize was served with a result${deferred ? ' (answered only after initialize)' : ''}`,
            'a JSON-RPC error: the session is not initialized',
            brief(early.reply),
            [channel],
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
];
