import { expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import { expectKilled, type GroupSession } from '../../../src/suites/runner/checks/timeout.js';
import { newMarker } from '../../../src/suites/runner/processes.js';
import { timedSessionRun } from './timed-run.js';

// The group checks judge each marked process on when it was last seen: one never seen has
// nothing to judge, and must not pass for being absent.

test('a marked process never seen, though others of the command were, is not judged (no pass on nothing)', () => {
  const [background, stubborn, foreground] = [newMarker(311), newMarker(312), newMarker(30)];
  const session = (seen: string[]): GroupSession => ({
    run: timedSessionRun({
      seconds: 1,
      warmUpAtMs: 100,
      timed: { atMs: 1150, read: 2 },
      lagMs: 0,
      seenArgs: seen,
    }),
    background,
    stubborn,
    foreground,
  });
  const onlyForeground = session([foreground.arg]);
  expect(expectKilled(onlyForeground, background, 'a background job')).toBe(false);
  expect(expectKilled(onlyForeground, foreground, 'the foreground command')).toBe(true);
  const all = session([background.arg, stubborn.arg, foreground.arg]);
  expect(expectKilled(all, background, 'a background job')).toBe(true);
  const none = session([]);
  expect(() => expectKilled(none, background, 'a background job')).toThrow(NotExercised);
});
