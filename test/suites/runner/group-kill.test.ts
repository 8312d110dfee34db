import { expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import { expectKilled, type GroupSession, TIMED_LINE } from '../../../src/suites/runner/checks/timeout.js';
import { toolUse } from '../../../src/suites/runner/lines.js';
import { newMarker } from '../../../src/suites/runner/processes.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';
import { warmUpLine } from '../../../src/suites/runner/timing.js';

// The group checks judge each marked process on when it was last seen: one never seen has
// nothing to judge, and must not pass for being absent.

/** A group session as the harness records it, the markers in `seenArgs` seen until 1.1 s. */
function groupRun(seenArgs: readonly string[]): SessionRun {
  const lines = [warmUpLine(), toolUse('sleep 30')];
  const answer = (i: number, content: string, isError: boolean) =>
    JSON.stringify({ type: 'tool_result', tool_use_id: lines[i]!.id, content, is_error: isError });
  const sighting = {
    pid: 7,
    ppid: 1,
    pgid: 7,
    sid: 1,
    state: 'S',
    argv: ['sleep'],
    uid: 1000,
    leader: undefined,
  };
  return {
    spec: { lines, timeoutS: 1, budgetMs: 60_000 },
    workdir: '/nonexistent',
    outputs: [
      { text: answer(0, '(no output; exit code 0)', false), atMs: 100, read: 1 },
      { text: answer(1, 'Command timed out after 1 seconds', true), atMs: 1150, read: 2 },
    ],
    droppedLines: 0,
    runnerPgid: 1,
    runnerGroups: new Set([1]),
    runnerStdio: undefined,
    exitedOnEof: true,
    exitCode: 0,
    exitSignal: null,
    budgetExceeded: false,
    stderr: '',
    seen: new Map(seenArgs.map((a) => [a, [sighting]])),
    firstSeenMs: new Map(seenArgs.map((a) => [a, 150])),
    lastSeenMs: new Map(seenArgs.map((a) => [a, 1100])),
    leftovers: new Map(),
    survivors: [],
    durationMs: 2000,
    harnessLagMs: 0,
  };
}

test('a marked process never seen, though others of the command were, is not judged (no pass on nothing)', () => {
  const [background, stubborn, foreground] = [newMarker(311), newMarker(312), newMarker(30)];
  const session = (seen: string[]): GroupSession => ({
    run: groupRun(seen),
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
