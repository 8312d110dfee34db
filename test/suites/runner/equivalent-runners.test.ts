import { expect, test } from 'vitest';
import { expectedStatuses, runAgainst, runnerCommand, statusById } from './helpers.js';

// Runners that differ from the reference only where the spec leaves them free: a check
// that fails one would be a false failure. Each runs the checks its difference touches.

const OUTPUT_CHECKS = [
  'output.stdout-and-stderr',
  'output.blank',
  'output.failure-with-stderr',
  'truncation.over-limit',
  'truncation.by-bytes',
  'truncation.large-output',
  'truncation.generated',
  'timeout.expiry',
  'timeout.term-ignored',
  'flood.timeout-result',
  'flood.output-kept',
];

test("a runner with its own words for the notes, lending stdout's line break to the separator line, passes the checks of those texts", async () => {
  const expected = expectedStatuses({ runner: 'other-words', flaw: '', passes: OUTPUT_CHECKS });
  const result = await runAgainst(runnerCommand('other-words'), { only: Object.keys(expected) });
  expect(statusById(result)).toEqual(expected);
}, 180_000);

test('a runner that writes content as a text block and leaves is_error false out passes as the result it means', async () => {
  const passes = [
    'results.ids-in-order',
    'output.stdout-and-stderr',
    'output.blank',
    'exit-status.is-error-iff-nonzero',
    'exit-status.stderr-not-error',
    'refusal.harmless-runs',
    'input.bad-lines-are-errors',
    'restart.fresh-session',
    'execution.workdir',
  ];
  const expected = expectedStatuses({ runner: 'long-forms', flaw: '', passes });
  const result = await runAgainst(runnerCommand('long-forms'), { only: Object.keys(expected) });
  expect(statusById(result)).toEqual(expected);
}, 180_000);

test('a runner that holds its answers until stdin ends (a buffered stdout) is not failed by the timing checks; what its timing cannot show is not exercised', async () => {
  const expected = expectedStatuses({
    runner: 'buffered',
    flaw: '',
    passes: ['timeout.expiry', 'timeout.term-ignored', 'flood.timeout-result', 'results.ids-in-order'],
    skips: ['timeout.kills-group', 'timeout.kills-term-ignoring-child'],
  });
  const result = await runAgainst(runnerCommand('buffered'), { only: Object.keys(expected) });
  expect(statusById(result)).toEqual(expected);
}, 180_000);

test('a runner that ends timed-out groups only at its exit is not passed on the timing of answers it held back', async () => {
  // Unbuffered, kill-groups-at-exit fails both checks (broken-processes.test.ts).
  const expected = expectedStatuses({
    runner: 'kill-groups-at-exit-buffered',
    flaw: '',
    skips: ['timeout.kills-group', 'timeout.kills-term-ignoring-child'],
  });
  const result = await runAgainst(runnerCommand('kill-groups-at-exit-buffered'), {
    only: Object.keys(expected),
  });
  expect(statusById(result)).toEqual(expected);
}, 180_000);

test('a runner that takes 7 s to start (a container) gets its pace from the preflight, not failures at a budget', async () => {
  const expected = expectedStatuses({
    runner: 'slow-start',
    flaw: '',
    passes: ['results.exits-on-eof', 'spawn-failure.error-result', 'restart.answered'],
  });
  const result = await runAgainst(runnerCommand('slow-start'), { only: Object.keys(expected) });
  expect(statusById(result)).toEqual(expected);
}, 180_000);
