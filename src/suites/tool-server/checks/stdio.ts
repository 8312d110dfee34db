import { type Check, CheckFailure, NotExercised, TargetGone } from '../../../harness/check.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import type { WireProblemKind } from '../diagnosis.js';
import { rpcEvidence } from '../evidence.js';
import { describeExit } from '../process.js';
import { exchange, initialize } from '../rpc.js';
import { revisionOf } from '../target.js';
import { minimalArguments, probeTool } from '../tool-choice.js';
import { CHECK_MS, CLAUSES, failWith, toolsIfListed } from './common.js';

/**
 * What makes a stdout line something other than a JSON-RPC message. A line nested deeper than
 * the reader reads is not among them: it may be a message, and it was not read.
 */
const NOT_PROTOCOL: ReadonlySet<WireProblemKind> = new Set(['not-json', 'not-jsonrpc']);

/** After the last reply, how long stdout is still watched for late output (a banner on exit, say). */
const TAIL_MS = 300;
/** How long a stdio server may take to exit once its stdin closed. */
export const EXIT_AFTER_EOF_MS = 3_000;

export const stdioChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.stdio.stdout-purity',
    clause: `${CLAUSES.stdioTransport} ("Standard output carries nothing but protocol messages"); ${CLAUSES.errors} (non-JSON text on stdout)`,
    description:
      'Every line a stdio server prints on stdout, from start to exit, is a JSON-RPC message; logs and banners go to stderr.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: standard output of a stdio tool server carries nothing but protocol messages; logs, banners and debug text go to standard error (a client terminates the connection on a non-JSON line). Every stdio server.',
    timeoutMs: CHECK_MS,
    prescribedWaitMs: TAIL_MS,
    async run(ctx) {
      // A process of its own, watched from its first byte to its exit on end of input.
      const channel = ctx.spawnStdio('stdout-purity');
      try {
        // The exchanges only make the server print: a reply that does not come, or a tool
        // list that cannot be had, is other checks' business; this one judges the lines seen.
        // Nor do they count for the run's silence watch: a call slower than the reply budget
        // (and the ping queued behind it) on this process would make the next check's first
        // slow call the third unanswered request in a row, and a slow server gone.
        const uncounted = { countSilence: false } as const;
        const unfinished = await driveQuietly(async () => {
          await initialize(channel, ctx.firstReplyMs, revisionOf(ctx.target));
          await exchange(channel, METHODS.toolsList, {}, ctx.replyMs, uncounted);
          const tool = probeTool(await toolsIfListed(ctx));
          if (tool !== undefined) {
            await exchange(
              channel,
              METHODS.toolsCall,
              { name: tool.name, arguments: minimalArguments(tool) },
              ctx.replyMs,
              uncounted,
            );
          }
          await exchange(channel, METHODS.ping, undefined, ctx.replyMs, uncounted);
        });
        await channel.endInput(1000);
        await new Promise((r) => setTimeout(r, TAIL_MS));
        // Judged from the wire's tallies, which count every line read: the items stop at their
        // caps, and a banner after 10,000 log lines is a banner all the same.
        const wire = channel.diagnosis();
        const problems = wire.problems.filter((p) => NOT_PROTOCOL.has(p.kind));
        const first = problems[0];
        if (first !== undefined) {
          const count = problems.reduce((n, p) => n + p.count, 0);
          throw new CheckFailure(
            `${count} stdout line(s) are not JSON-RPC messages, the first: ${JSON.stringify(first.first)}`,
            'only JSON-RPC messages on stdout',
            wire.summary,
            rpcEvidence('stdout of a stdio session', [channel], first.first),
          );
        }
        if (wire.fatal !== undefined) {
          throw new NotExercised(
            `${wire.summary}: the lines after it were not read, so stdout cannot be judged whole`,
          );
        }
        const deep = wire.problems.find((p) => p.kind === 'too-deep');
        if (deep !== undefined) {
          throw new NotExercised(
            `${deep.count} stdout line(s) were nested too deep to read (the first: ${JSON.stringify(deep.first.slice(0, 120))}: ${deep.detail}), so stdout cannot be judged whole`,
          );
        }
        if (wire.units === 0) {
          throw new NotExercised(
            `no complete line on stdout to judge (${wire.summary})${unfinished === undefined ? '' : `; ${unfinished}`}`,
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
  {
    id: 'tool-server.stdio.exit-on-eof',
    clause: `${CLAUSES.stdioTransport}; "A stdio session ... ends when that process ends"; MCP 2024-11-05 lifecycle, shutdown over stdio`,
    description: `A stdio server exits within ${EXIT_AFTER_EOF_MS} ms once its stdin is closed.`,
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2024-11-05: to shut a stdio server down the client SHOULD close its input and wait for it to exit, signalling it only if it does not exit in reasonable time; a server that ignores the end of its input is killed instead of ending cleanly.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = ctx.spawnStdio('exit-on-eof');
      try {
        const init = await initialize(channel, ctx.firstReplyMs, revisionOf(ctx.target));
        if (init.reply === undefined) {
          throw failWith(`initialize got no reply (${init.why})`, 'an initialize result', 'nothing', [
            channel,
          ]);
        }
        const exited = await channel.endInput(EXIT_AFTER_EOF_MS);
        if (!exited) {
          throw failWith(
            `the server ${describeExit(channel.process)} ${EXIT_AFTER_EOF_MS} ms after its stdin was closed`,
            `exit within ${EXIT_AFTER_EOF_MS} ms of end of input`,
            'still running',
            [channel],
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
];

/**
 * Run the steps that drive a server, turning a failure of theirs into why they stopped
 * (undefined when they all ran). A server gone for good still ends the run.
 */
async function driveQuietly(steps: () => Promise<void>): Promise<string | undefined> {
  try {
    await steps();
    return undefined;
  } catch (e) {
    if (e instanceof TargetGone || !(e instanceof CheckFailure)) throw e;
    return e.message;
  }
}
