import type { ChildProcess } from 'node:child_process';
import { type Enclosure, type EnclosureFactory, TAG_VARIABLE } from './enclosure.js';
import { environmentHolds, isAlive, killPid, listPids } from './procfs.js';

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
