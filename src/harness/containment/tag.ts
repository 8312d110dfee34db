import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type Enclosure, type EnclosureFactory, TAG_VARIABLE } from './enclosure.js';
import { environmentHolds, isAlive, killPid, listPids } from './procfs.js';

/** What every tag of this process starts with: the reaper finds the run's targets by it. */
const RUN_TAG = randomBytes(8).toString('hex');

/** A new target's tag: the run's, then the target's own. */
export function newTag(): string {
  return `${RUN_TAG}-${randomBytes(8).toString('hex')}`;
}

/**
 * What the reaper (reaper.ts) runs for the tag method when the harness died without its exit
 * path: every process whose initial environment holds a tag of this run is killed, twice
 * over (a process may fork while the first pass runs). One `grep -z` reads every environ in
 * a single process; the loop of a `tr | grep` per process (two forks each: seconds on a loaded
 * machine with hundreds of processes, while the targets live on) is only for a grep without -z.
 */
export const TAG_REAPER_KILL = [
  'cd /proc || exit 0',
  'for pass in 1 2; do',
  '  if printf "a\\0" | grep -qz "^a" 2>/dev/null; then',
  '    grep -lsz -e "^$1" [0-9]*/environ | while IFS=/ read -r p _; do kill -9 "$p" 2>/dev/null; done',
  '  else',
  '    for p in [0-9]*; do',
  '      if tr "\\0" "\\n" < "$p/environ" 2>/dev/null | grep -q "^$1"; then kill -9 "$p" 2>/dev/null; fi',
  '    done',
  '  fi',
  'done',
  'exit 0',
].join('\n');

/** The argument of TAG_REAPER_KILL: the start of every environment entry of this run's tags. */
export const TAG_REAPER_ARGS = [`${TAG_VARIABLE}=${RUN_TAG}-`] as const;

/**
 * The fallback: the target's processes are those whose initial environment holds the
 * target's tag (every process inherits it unless it clears its environment, and a setsid
 * escapee keeps it). Found by reading /proc/<pid>/environ of the processes this user may
 * read. A process started with a cleared environment (`env -i`) is not found.
 */
export function tagEnclosures(): EnclosureFactory {
  return (tag, command): Enclosure => {
    const entry = `${TAG_VARIABLE}=${tag}`;
    let child: ChildProcess | undefined;
    const members = (): number[] =>
      listPids().filter(
        (pid) => pid !== process.pid && (pid === child?.pid || environmentHolds(pid, entry)) && isAlive(pid),
      );
    return {
      method: 'tag',
      file: 'sh',
      args: ['-c', command],
      extraStdio: [],
      ready: Promise.resolve(),
      started(spawned) {
        child = spawned;
      },
      members,
      empty: () => members().length === 0,
      killAll() {
        for (const pid of members()) killPid(pid);
      },
      release() {},
    };
  };
}
