import { DEFAULT_TIMEOUT_S } from '../../protocol/bash/index.js';
import { timedSessionBudgetMs } from './checks/common.js';
import type { RunnerCtx } from './context.js';
import { toolUse } from './lines.js';
import { type Marker, newMarker } from './processes.js';
import type { SessionRun } from './session.js';
import { warmUpLine } from './timing.js';

/** The case of the real default timeout: a long sleep, WIRECHECK_TIMEOUT_S left unset. */
export interface DefaultTimeoutSession {
  readonly run: SessionRun;
  readonly sleeper: Marker;
}

const KEY = 'default-timeout';

/**
 * The one case that takes 20 s. It is started when the suite opens and runs in the
 * background while the other checks run (it only sleeps), so the suite is not 20 s
 * slower; its checks await it. It ends when the suite closes, whatever happened.
 */
export function defaultTimeoutSession(ctx: RunnerCtx): Promise<DefaultTimeoutSession> {
  return ctx.shared(KEY, undefined, async () => {
    const sleeper = newMarker(40);
    const run = await ctx.run({
      lines: [warmUpLine(), toolUse(sleeper.command)],
      timeoutS: undefined,
      budgetMs: timedSessionBudgetMs(DEFAULT_TIMEOUT_S),
      // Not watched: its check judges the answer alone, and scanning /proc every 50 ms for the
      // 20 s cost the harness about a second of CPU beside the other checks. The case's
      // containment ends the sleeper whatever the runner does.
      signal: ctx.closing,
    });
    return { run, sleeper };
  });
}

/** Start the default-timeout case now, in the background. */
export function startDefaultTimeoutSession(ctx: RunnerCtx): void {
  void defaultTimeoutSession(ctx);
}
