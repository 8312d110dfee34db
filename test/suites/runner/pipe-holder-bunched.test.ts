import { expect, test } from 'vitest';
import { runAgainst, runnerCommand } from './helpers.js';

// Answers held until stdin ends come together: their gap says nothing of a wait for the pipes,
// so the check times the answer from when its job was seen or, unseen, from the session's start
// (every line is sent then): before the command's timeout could run out, it did not wait.
test('a runner that holds its answers but does not wait for the pipes is not warned on pipe-holder', async () => {
  const result = await runAgainst(runnerCommand('buffered'), { only: ['runner.processes.pipe-holder'] });
  const check = result.checks.find((c) => c.id === 'runner.processes.pipe-holder');
  expect(check?.status, check?.message).toBe('pass');
}, 60_000);

// Held answers written one at a time (two reads of stdout, a second apart) are as bunched as one
// write: their gap hides a wait for the pipes too. With the job never seen (the commands' sleep
// is no `sleep` process), the answer is timed from the session's start.
test('a runner that writes its held answers in two writes, its job never seen, passes pipe-holder when they came before the timeout could run out', async () => {
  const result = await runAgainst(runnerCommand('held-lines-own-sleep'), {
    only: ['runner.processes.pipe-holder'],
  });
  const check = result.checks.find((c) => c.id === 'runner.processes.pipe-holder');
  expect(check?.status, check?.message).toBe('pass');
}, 60_000);

test('a runner that waits for the pipes and writes its held answers in two writes, its job never seen, is not exercised on pipe-holder (not passed on their gap)', async () => {
  const result = await runAgainst(runnerCommand('wait-for-pipes-held-lines-own-sleep'), {
    only: ['runner.processes.pipe-holder'],
  });
  const check = result.checks.find((c) => c.id === 'runner.processes.pipe-holder');
  expect([check?.status, check?.skipKind], check?.message).toEqual(['skip', 'not-exercised']);
  // Two reads: the path this test is for (one read is the buffered runners').
  expect(check?.message).toMatch(/they came \d+ ms apart, closer than the harness's own lateness/);
  expect(check?.message).toMatch(/never seen in \/proc, so whether it waited for the pipes cannot be told/);
}, 60_000);
