import { Spawner } from './spawner.js';

let current: Spawner | undefined;
let holders = 0;
/** No spawner could be started during this lease: the harness starts its targets itself. */
let unavailable = false;

/**
 * Runs `fn` (a suite run) with a spawner at hand for its targets. Suite runs that overlap
 * (`wirecheck all`) share one; it ends when the last of them does, and is waited for, so the
 * CPU of the targets it started counts among the harness's waited-for children when the run
 * returns (the bench's target CPU reads it).
 */
export async function withSpawner<T>(fn: () => Promise<T>): Promise<T> {
  holders += 1;
  try {
    return await fn();
  } finally {
    holders -= 1;
    if (holders === 0) {
      const spawner = current;
      current = undefined;
      unavailable = false;
      await spawner?.close();
    }
  }
}

/** The spawner of the runs in progress (started at the first start), or undefined outside them or where none starts. */
export function activeSpawner(): Spawner | undefined {
  if (holders === 0 || unavailable) return undefined;
  if (current === undefined || !current.usable) {
    current = Spawner.start();
    unavailable = current === undefined;
  }
  return current;
}
