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
