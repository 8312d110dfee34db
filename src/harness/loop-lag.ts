import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the probe's timer should fire; its lateness beyond this is the lag. */
const RESOLUTION_MS = 20;

export interface LoopLagProbe {
  /** Stop probing: the largest lateness (ms) of this process's timers since the probe started. */
  stop(): number;
}

/**
 * A timer-drift probe: how late this process's event loop ran a timer meant to fire every
 * 20 ms, at worst, while the probe ran. A busy harness (other suites' checks in the same
 * process) and a busy machine (the process not scheduled) both show up here; it bounds how
 * late the harness noticed anything that happened meanwhile, such as a line a target printed.
 * Timing verdicts widen their tolerance by it, so that the harness's own lateness never
 * turns into a target's failure.
 */
export function startLoopLagProbe(): LoopLagProbe {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let stopped: number | undefined;
  return {
    stop() {
      if (stopped === undefined) {
        histogram.disable();
        // The histogram records whole intervals (ns); none recorded: no lateness seen.
        const max = histogram.count === 0 ? 0 : histogram.max / 1e6;
        stopped = Math.max(0, max - RESOLUTION_MS);
      }
      return stopped;
    },
  };
}
