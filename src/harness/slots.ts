/**
 * The run's job slots (`--jobs N`): how many cases of a suite may run at once. A check holds
 * one while it runs; a check that must run alone holds them all; a property-based check may
 * borrow free ones no waiting check could start on to run more of its cases at once
 * (src/harness/property.ts).
 */
export interface Slots {
  /** How many slots there are. */
  readonly size: number;
  /** Take `count` slots, waiting (first come, first served) until they are free. */
  acquire(count?: number): Promise<void>;
  /**
   * For a check that holds a slot of this pool already (a property-based check's extra cases):
   * take one free slot if that keeps no waiter waiting longer; false otherwise. That is while
   * nobody waits, or while the first in line waits for every slot (a check that runs alone):
   * it must wait for the caller's own slot anyway, which the caller gives back only after the
   * ones it borrowed, and sooner for having borrowed them.
   */
  tryAcquire(): boolean;
  release(count?: number): void;
}

interface Waiter {
  readonly count: number;
  readonly resolve: () => void;
}

export function createSlots(size: number): Slots {
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`slots: size must be >= 1, got ${size}`);
  let free = size;
  const waiting: Waiter[] = [];
  const wake = () => {
    // First come, first served: a waiter for many slots is not overtaken by later ones for one.
    for (let first = waiting[0]; first !== undefined && first.count <= free; first = waiting[0]) {
      waiting.shift();
      free -= first.count;
      first.resolve();
    }
  };
  return {
    size,
    acquire(count = 1) {
      const wanted = Math.min(count, size);
      if (waiting.length === 0 && wanted <= free) {
        free -= wanted;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push({ count: wanted, resolve }));
    },
    tryAcquire() {
      const first = waiting[0];
      if (free === 0 || (first !== undefined && first.count < size)) return false;
      free--;
      return true;
    },
    release(count = 1) {
      free = Math.min(size, free + Math.min(count, size));
      wake();
    },
  };
}
