import { type Check, CheckFailure, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { KEEP_ALIVE_MS } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { frameEvidence } from '../evidence.js';
import {
  KEEP_ALIVE_LIMIT,
  KEEP_ALIVE_TOLERANCE_MS,
  KEEP_ALIVE_WATCH_MS,
  keepAliveSeen,
  keepAliveVerdictSettled,
  keepAliveWindow,
  keepAliveWindowOverAt,
} from '../idle-stream.js';
import { delay } from '../rpc.js';
import { keepAliveGap, keepAliveSettledAt } from '../rules.js';
import { CLAUSES } from './common.js';

export const keepAliveChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.sse.keep-alive',
    clause: `${CLAUSES.sseEvents} (keep-alive: "servers emit a comment frame ... or a JSON-RPC ping request every 15 seconds"); ${CLAUSES.limits} (keep-alive interval 15 s)`,
    description: `An idle stream carries a keep-alive (a comment frame or a JSON-RPC ping request) at least every 15 s (+${KEEP_ALIVE_TOLERANCE_MS / 1000} s tolerance), a whole interval between two keep-alives seen. The stream is opened with the suite and judged at its end, so the watch overlaps the other checks; it ends at the second keep-alive when every gap up to it is within the limit, at the first gap over the limit, or after ${KEEP_ALIVE_WATCH_MS / 1000} s. When a server that bounds its sessions refused one a check needed, the suite let that stream go, and a new one is watched here instead if its verdict was not yet settled.`,
    level: 'must',
    basis: 'spec',
    rule: 'The spec: SSE tool servers emit a keep-alive every 15 seconds, a comment frame or a JSON-RPC ping request, so that proxies and load balancers do not close idle streams (they do after 30 to 60 s). Every SSE tool server.',
    // The watch started when the suite opened; what is left of it, at most, plus slack. A new
    // stream (the first let go for a capped server) is opened, then watched whole.
    timeoutMs: KEEP_ALIVE_WATCH_MS + 20_000,
    // What is left of the watch is a wait: it holds no job slot of a run shared with other suites.
    schedule: 'waits',
    async run(ctx, env) {
      if (ctx.transport !== 'sse') throw new CheckSkipped('this check applies to the SSE transport only');
      const channel = await ctx.idle.watched();
      const { fromMs, toMs } = keepAliveWindow(channel);
      // The watch ends early once the verdict settles (keepAliveVerdictSettled): a server
      // beating every 15 s is judged at its second beat, a silent one 20 s in.
      while (!keepAliveVerdictSettled(channel) && !env.signal.aborted) {
        await delay(
          Math.min(250, Math.max(0, keepAliveWindowOverAt(channel) - performance.now())),
          env.signal,
        );
      }
      const frames = channel.frameItems();
      const settledAt = keepAliveSettledAt(frames, { fromMs, toMs }, KEEP_ALIVE_LIMIT);
      const watched = settledAt === undefined ? keepAliveSeen(channel) : { fromMs, toMs: settledAt };
      const gap = keepAliveGap(frames, watched, KEEP_ALIVE_LIMIT);
      if (gap !== undefined) {
        throw new CheckFailure(
          `the idle stream carried no keep-alive for ${Math.round(gap.gapMs)} ms (from ${gap.afterMs} ms after it opened; ${frames.length} frames kept, ${frames.filter((f) => f.comment).length} of them comments)`,
          `a comment frame or a ping request at least every ${KEEP_ALIVE_MS} ms`,
          `${Math.round(gap.gapMs)} ms without one`,
          frameEvidence('idle stream', channel),
        );
      }
      if (settledAt === undefined && watched.toMs < toMs) {
        const why = channel.gone();
        throw new NotExercised(
          `${why === undefined ? 'the watch of the idle stream was cut short' : `the idle stream ended (${why})`} ${watched.toMs} ms after it opened, before ${KEEP_ALIVE_WATCH_MS} ms of it could be watched`,
        );
      }
    },
  },
];
