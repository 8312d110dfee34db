import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { openLifeline } from './lifeline.js';

/**
 * The process that ends a run's targets when the harness dies without running its exit
 * path: a kill -9, the kernel's OOM killer, V8 aborting on an exhausted heap. Such a death
 * runs no code of ours, so whatever the targets started would run on (a `--start` server
 * held its port until killed by hand).
 *
 * It is `sh -c SCRIPT wirecheck-reaper ARGS`, in a session of its own (a Ctrl-C at the
 * terminal is the harness's to handle), with PATH its only variable, holding no stdio of the harness (a pipe reading the
 * harness's output ends with the harness), reading the lifeline: end-of-file means the
 * harness is gone, and the script kills. The harness's exit path kills the targets itself,
 * then writes a line that dismisses the script before it acts.
 */
export interface Reaper {
  /** Tells the reaper the run ended normally; it exits without acting. Synchronous: the exit path calls it. */
  dismiss(): void;
}

/** The line the harness writes on the lifeline when it ended normally. */
const DISMISSED = 'done';

/**
 * Starts a reaper that runs `kill` (sh, its arguments `args` as $1...) once the harness is
 * gone, or says why none could start (the method then works without one).
 */
export function startReaper(kill: string, args: readonly string[]): Reaper | string {
  const script = `read line; [ "$line" = ${DISMISSED} ] && exit 0\n${kill}`;
  const lifeline = openLifeline();
  if (typeof lifeline === 'string') return lifeline;
  let readEnd: number | undefined;
  try {
    readEnd = openSync(`/proc/self/fd/${lifeline}`, 'r');
    const child = spawn('sh', ['-c', script, 'wirecheck-reaper', ...args], {
      detached: true,
      // What it runs needs PATH only; a target that finds it learns nothing of the harness's environment.
      env: process.env.PATH === undefined ? {} : { PATH: process.env.PATH },
      stdio: [readEnd, 'ignore', 'ignore'],
    });
    child.on('error', () => {
      // No sh: reported by nothing further; the exit path still kills what it can.
    });
    child.unref();
  } catch (error) {
    closeSync(lifeline);
    return `cannot start the reaper: ${(error as Error).message}`;
  } finally {
    if (readEnd !== undefined) closeSync(readEnd);
  }
  let open = true;
  return {
    dismiss() {
      if (!open) return;
      open = false;
      try {
        writeSync(lifeline, `${DISMISSED}\n`);
      } finally {
        closeSync(lifeline);
      }
    },
  };
}
