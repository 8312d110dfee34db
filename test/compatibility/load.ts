import { type ChildProcess, spawn } from 'node:child_process';

// WIRECHECK_SWEEP_LOAD=N: the sweep runs beside N processes that keep a core busy each, as on a
// CI machine shared with other jobs. A verdict that changes under load (a timing rule judged
// against the harness's own lateness, a budget too tight) shows up here, not on a user's CI.

/** The most busy processes a sweep starts. */
const MOST = 16;
/** A busy process ends by itself after this long, whatever happens to the sweep. */
const LONGEST_S = 3 * 3600;

/**
 * Spins in slices of 50 ms and ends once its parent is gone (its ppid changes) or after
 * LONGEST_S, so that a sweep killed hard leaves nothing spinning.
 */
const BUSY = `const parent = process.ppid; const end = Date.now() + ${LONGEST_S * 1000};
for (;;) { const slice = Date.now() + 50; while (Date.now() < slice) {} if (process.ppid !== parent || Date.now() > end) process.exit(0); }`;

export function sweepLoad(value = process.env.WIRECHECK_SWEEP_LOAD ?? '0'): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > MOST) {
    throw new Error(
      `WIRECHECK_SWEEP_LOAD: expected a whole number of busy processes, 0 to ${MOST}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

export default function setup(): () => Promise<void> {
  const busy: ChildProcess[] = Array.from({ length: sweepLoad() }, () =>
    spawn(process.execPath, ['-e', BUSY], { stdio: 'ignore' }),
  );
  if (busy.length > 0)
    console.log(
      `sweep under load: ${busy.length} busy processes (pids ${busy.map((b) => b.pid).join(', ')})`,
    );
  return async () => {
    await Promise.all(
      busy.map(
        (b) =>
          new Promise<void>((resolve) => {
            if (b.exitCode !== null || b.signalCode !== null || b.pid === undefined) return resolve();
            b.once('exit', () => resolve());
            process.kill(b.pid, 'SIGKILL');
          }),
      ),
    );
  };
}
