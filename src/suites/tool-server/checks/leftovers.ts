import { type Check, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { noneLeftCheck } from '../../../harness/containment/index.js';
import { quotedCommand } from '../../target-secrets.js';
import type { ToolServerCtx } from '../context.js';
import type { StdioChannel } from '../stdio-channel.js';
import { EXIT_AFTER_EOF_MS } from './stdio.js';

export const leftoverChecks: Check<ToolServerCtx>[] = [
  noneLeftCheck<ToolServerCtx>({
    suite: 'tool-server',
    what: (ctx) =>
      ctx.target.kind === 'stdio' ? `the server command ${quotedCommand(ctx.target.command)}` : 'the server',
    ledger: (ctx) => ctx.leftovers,
    clause:
      'Tool server, stdio transport (the client starts the server as a subprocess); MCP 2024-11-05 lifecycle, shutdown over stdio',
    rule: "No text requires it; MCP 2024-11-05 ends a stdio session by ending the server's process, and wirecheck applies the hygiene the spec recommends for a runner (an environment destroyed at the end of the session): a stdio server process that has been ended leaves no process of its own running (a setsid helper, a daemon), in any session of the run.",
    async exercise(ctx) {
      if (ctx.target.kind !== 'stdio') {
        if (ctx.target.start === undefined) {
          throw new CheckSkipped('the server is a URL: wirecheck started no process of it');
        }
        throw new NotExercised(
          'the --start server runs until the suite ends, after every check: what it leaves running then is killed, not judged',
        );
      }
      // One session of its own, initialized (the server is up) and ended here, so there is always one to judge.
      const channel = await ctx.connect('leftovers');
      try {
        // Ended as MCP 2024-11-05 shuts a stdio server down (its input closed, then a wait for its
        // exit, signals only after): a server that exits by itself is judged on what it leaves in
        // its own process group too, which no real client's signal to the server's pid would end.
        if (channel.transport === 'stdio') await (channel as StdioChannel).endInput(EXIT_AFTER_EOF_MS);
      } finally {
        await channel.close();
      }
    },
  }),
];
