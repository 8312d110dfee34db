/** What the registry needs of a live target. */
interface Killable {
  killNow(): void;
}

const live = new Set<Killable>();

/**
 * Kills every contained target that has not been closed yet, with its whole enclosure,
 * synchronously: safe in `process.on('exit')` and in a signal handler. Returns how many
 * targets it reached. Each target's own close() still runs its course (and releases).
 */
export function killAllContainedTargets(): number {
  let count = 0;
  for (const target of live) {
    target.killNow();
    count += 1;
  }
  return count;
}

/** How many contained targets are live (started and not closed). */
export function liveContainedTargets(): number {
  return live.size;
}

export function register(target: Killable): void {
  live.add(target);
}

export function unregister(target: Killable): void {
  live.delete(target);
}
