/**
 * The run's job slots (`--jobs N`): how many cases of a suite may run at once. A check holds
 * one while it runs; a check that must run alone holds them all; a property-based check may
 * borrow the ones nobody is waiting for to run more of its cases at once (src/harness/property.ts).
 */
export interface Slots {
  /** How many slots there are. */
  readonly size: number;
  /** Take `count` slots, waiting (first come, first served) until they are free. */
  acquire(count?: number): Promise<void>;
  /** Take one slot if one is free and nobody waits for one; false otherwise. */
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
      if (waiting.length > 0 || free === 0) return false;
      free--;
      return true;
    },
    release(count = 1) {
      free = Math.min(size, free + Math.min(count, size));
      wake();
    },
  };
}
