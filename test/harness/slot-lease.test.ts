import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { leaseSlot } from '../../src/harness/slot-lease.js';
import { createSlots, type Slots } from '../../src/harness/slots.js';

/** A pending promise and its resolver. */
function pending<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Free slots of the pool now (takes and gives back what it finds, without waiting). */
function freeNow(slots: Slots): number {
  let free = 0;
  while (slots.tryAcquire()) free++;
  slots.release(free);
  return free;
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A pool of 4 with 1 free: two slots held by other checks, one by the check under test. The
 * pool caps its free slots at its size, so a slot given back twice shows only below the cap.
 */
async function poolWithCheck(): Promise<Slots> {
  const slots = createSlots(4);
  await slots.acquire(3);
  return slots;
}

describe('leaseSlot', () => {
  test('a wait gives the slot back to the pool and takes it again before it resolves', async () => {
    const slots = await poolWithCheck();
    const lease = leaseSlot(slots);
    const work = pending<string>();
    const waited = lease.idle(work.promise);
    await settle();
    expect(freeNow(slots)).toBe(2);
    work.resolve('done');
    expect(await waited).toBe('done');
    expect(freeNow(slots)).toBe(1);
    await lease.end();
    expect(freeNow(slots)).toBe(1);
  });

  test('the slot lent is taken by a waiting check, and the lender waits its turn to take one back', async () => {
    const slots = createSlots(1);
    await slots.acquire(1);
    const lease = leaseSlot(slots);
    const work = pending();
    const waited = lease.idle(work.promise);
    let otherRan = false;
    const other = slots.acquire(1).then(async () => {
      otherRan = true;
      await settle();
      slots.release(1);
    });
    await settle();
    expect(otherRan).toBe(true);
    work.resolve();
    await waited;
    await other;
    expect(freeNow(slots)).toBe(0);
  });

  test('a work that rejects still takes the slot back, and the rejection reaches the check', async () => {
    const slots = await poolWithCheck();
    const lease = leaseSlot(slots);
    await expect(lease.idle(Promise.reject(new Error('session failed')))).rejects.toThrow('session failed');
    expect(freeNow(slots)).toBe(1);
  });

  test('a check cut short while it waits holds its slot again at its end, and the late work changes nothing', async () => {
    const slots = await poolWithCheck();
    const lease = leaseSlot(slots);
    const work = pending();
    const waited = lease.idle(work.promise);
    await settle();
    expect(freeNow(slots)).toBe(2);
    await lease.end();
    expect(freeNow(slots)).toBe(1);
    work.resolve();
    await waited;
    expect(freeNow(slots)).toBe(1);
    // Waits after the end are waited as they are.
    await lease.idle(Promise.resolve());
    expect(freeNow(slots)).toBe(1);
  });

  test('any interleaving of overlapping waits: never more than the one slot lent, and it is held again at the end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ startTick: fc.nat(5), lengthTicks: fc.nat(5) }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (waits, endEarly) => {
          const slots = await poolWithCheck();
          const lease = leaseSlot(slots);
          const works = waits.map(() => pending());
          const done: Promise<void>[] = [];
          const last = Math.max(...waits.map((w) => w.startTick + w.lengthTicks)) + 1;
          for (let tick = 0; tick <= last; tick++) {
            waits.forEach((w, i) => {
              if (w.startTick === tick) done.push(lease.idle(works[i]!.promise));
              if (w.startTick + w.lengthTicks === tick) works[i]!.resolve();
            });
            await settle();
            // The check gives back its own slot at most, and never holds a second one.
            expect([1, 2]).toContain(freeNow(slots));
            if (endEarly && tick === 2) await lease.end();
          }
          for (const w of works) w.resolve();
          await Promise.all(done);
          await lease.end();
          expect(freeNow(slots)).toBe(1);
        },
      ),
      { numRuns: 60, seed: 7 },
    );
  });
});
