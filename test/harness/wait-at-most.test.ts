import { expect, test } from 'vitest';
import { waitAtMost } from '../../src/harness/wait-at-most.js';

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

test('a promise that settles in time: true, and the timer is gone at once', async () => {
  // Only microtasks run between the two counts, so no other timer can come or go meanwhile.
  const before = timers();
  expect(await waitAtMost(Promise.resolve('done'), 60_000)).toBe(true);
  expect(timers()).toBe(before);
});

test('a rejection counts as settled, and is not thrown', async () => {
  expect(await waitAtMost(Promise.reject(new Error('gone')), 60_000)).toBe(true);
});

test('a promise that never settles: false once the time is up', async () => {
  expect(await waitAtMost(new Promise(() => {}), 20)).toBe(false);
});
