import type { Slots } from './slots.js';

/**
 * The one job slot an ordinary check holds while it runs, which it gives back to the pool
 * while it only waits. Without it, two checks of one runner session held two slots for one
 * runner process, and a core stood idle (see docs/performance.md).
 */
export interface SlotLease {
  /**
   * Wait for `work` the check does not do itself: its slot goes back to the pool meanwhile and
   * is taken again (first come, first served) before this resolves, since the check goes on.
   */
  idle<T>(work: Promise<T>): Promise<T>;
  /**
   * The check is over (its body may still be waiting, cut short by its budget): resolves once
   * the slot is held again, so that whoever gave it to the check can give it back.
   */
  end(): Promise<void>;
}

/** Told when a check stands in line to take its lent slot back, and when it has it again. */
export interface InLine {
  enter(): void;
  leave(): void;
}

/**
 * Lease the slot of `slots` the caller holds now. `line` hears when taking it back waits for
 * a slot: time the check spends in line behind others, not on its own work, which its budget
 * must not count (or a check's verdict would depend on `--jobs`).
 */
export function leaseSlot(slots: Slots, line?: InLine): SlotLease {
  let waits = 0;
  let lent = false;
  let ended = false;
  // Every change of the slot's state runs in turn: a lend never overtakes the taking back
  // of an earlier one, so the check never holds two slots or gives back one it lent.
  let turn = Promise.resolve();
  const inTurn = (change: () => void | Promise<void>): Promise<void> => {
    turn = turn.then(change);
    return turn;
  };
  const takeBack = async () => {
    if (!lent) return;
    const counted = !ended;
    if (counted) line?.enter();
    await slots.acquire(1);
    lent = false;
    if (counted) line?.leave();
  };
  return {
    async idle<T>(work: Promise<T>): Promise<T> {
      if (ended) return work;
      waits++;
      await inTurn(() => {
        if (waits > 0 && !lent && !ended) {
          lent = true;
          slots.release(1);
        }
      });
      try {
        return await work;
      } finally {
        waits--;
        await inTurn(() => (waits === 0 && !ended ? takeBack() : undefined));
      }
    },
    end() {
      ended = true;
      return inTurn(takeBack);
    },
  };
}

/** The lease of a check that holds no slot it could lend: waits as they are. */
export const NO_LEASE: SlotLease = {
  idle: (work) => work,
  end: async () => {},
};
