import { type Check, CheckFailure } from '../../../harness/check.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { rpcEvidence } from '../evidence.js';
import { exchange, initialize } from '../rpc.js';
import { minimalArguments, probeTool } from '../tool-choice.js';
import { CHECK_MS, CLAUSES } from './common.js';

/** After the last reply, how long stdout is still watched for late output (a banner on exit, say). */
const TAIL_MS = 300;

export const stdioChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.stdio.stdout-purity',
    clause: `${CLAUSES.stdioTransport} ("Standard output carries nothing but protocol messages"); ${CLAUSES.errors} (non-JSON text on stdout)`,
    description:
      'Every line a stdio server prints on stdout, from start to exit, is a JSON-RPC message; logs and banners go to stderr.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      // A process of its own, watched from its first byte to its exit on end of input.
      const channel = ctx.spawnStdio('stdout-purity');
      try {
        await initialize(channel, ctx.replyMs);
        await exchange(channel, METHODS.toolsList, {}, ctx.replyMs);
        const tool = probeTool(await ctx.tools());
        if (tool !== undefined) {
          await exchange(
            channel,
            METHODS.toolsCall,
            { name: tool.name, arguments: minimalArguments(tool) },
            ctx.replyMs,
          );
        }
        await exchange(channel, METHODS.ping, undefined, ctx.replyMs);
        await channel.endInput(1000);
        await new Promise((r) => setTimeout(r, TAIL_MS));
        const bad = channel.peer.items.filter(
          (i) => i.direction === 'received' && (i.kind === 'not-json' || i.kind === 'invalid'),
        );
        const first = bad[0];
        if (first !== undefined) {
          throw new CheckFailure(
            `${bad.length} stdout line(s) are not JSON-RPC messages, the first: ${JSON.stringify(first.text.slice(0, 200))}`,
            'only JSON-RPC messages on stdout',
            bad.map((b) => b.text.slice(0, 200)).join('\n'),
            rpcEvidence('stdout of a stdio session', [channel], first.text),
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
];
