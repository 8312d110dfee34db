import { AsyncLocalStorage } from 'node:async_hooks';

/** Target processes started within one suite run (spawnContained counts them). */
export interface StartCounter {
  count: number;
}

const counters = new AsyncLocalStorage<StartCounter>();

/** Run `fn` (a suite run) counting every target process started within it, its background work included. */
export function countingStarts<T>(counter: StartCounter, fn: () => Promise<T>): Promise<T> {
  return counters.run(counter, fn);
}

/** Called by spawnContained for each process it starts: counted for the suite run it belongs to, if any. */
export function noteTargetStart(): void {
  const counter = counters.getStore();
  if (counter !== undefined) counter.count++;
}
