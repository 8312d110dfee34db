import { type Check, CheckFailure } from '../../../harness/check.js';
import { KEEP_ALIVE_MS } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { frameEvidence } from '../evidence.js';
import { delay } from '../rpc.js';
import { keepAliveGap } from '../rules.js';
import { CLAUSES } from './common.js';

/** Slack on the 15 s interval: timers, scheduling, a busy CI machine. */
export const KEEP_ALIVE_TOLERANCE_MS = 5_000;
const OBSERVE_MARGIN_MS = 1_000;

export const keepAliveChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.sse.keep-alive',
    clause: `${CLAUSES.sseEvents} (keep-alive every 15 seconds); ${CLAUSES.limits} (keep-alive interval 15 s)`,
    description:
      'An idle stream carries a keep-alive (a comment frame or a JSON-RPC ping request) at least every 15 s (+5 s tolerance) (should: the official SDK legacy transport sends none).',
    level: 'should',
    tier: 'full',
    timeoutMs: KEEP_ALIVE_MS + KEEP_ALIVE_TOLERANCE_MS + 15_000,
    async run(ctx, env) {
      const channel = await ctx.openSession('idle', true);
      try {
        const endpointFrame = channel.frames.find((f) => f.event === 'endpoint');
        const fromMs = Math.round((endpointFrame?.at ?? channel.openedAt) - channel.openedAt);
        // Watched a little longer than interval + tolerance, so that a silent stream shows a gap over the limit.
        const toMs = fromMs + KEEP_ALIVE_MS + KEEP_ALIVE_TOLERANCE_MS + OBSERVE_MARGIN_MS;
        await delay(Math.max(0, channel.openedAt + toMs + 50 - performance.now()), env.signal);
        const frames = channel.frameItems();
        const gap = keepAliveGap(
          frames,
          { fromMs, toMs },
          { intervalMs: KEEP_ALIVE_MS, toleranceMs: KEEP_ALIVE_TOLERANCE_MS },
        );
        if (gap !== undefined) {
          throw new CheckFailure(
            `the idle stream carried no keep-alive for ${Math.round(gap.gapMs)} ms (from ${gap.afterMs} ms after it opened)`,
            `a comment frame or a ping request at least every ${KEEP_ALIVE_MS} ms`,
            `${frames.length} frames, none a keep-alive in that gap`,
            frameEvidence('idle stream', channel),
          );
        }
      } finally {
        await channel.close();
      }
    },
  },
];
