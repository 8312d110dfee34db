import { expect, test } from 'vitest';
import { runAgainst, runnerCommand } from './helpers.js';

// Answers held until stdin ends come together: their gap says nothing of a wait for the pipes,
// so the check times the answer from the command's start, or does not judge it.
test('a runner that holds its answers but does not wait for the pipes is not warned on pipe-holder', async () => {
  const result = await runAgainst(runnerCommand('buffered'), { only: ['runner.processes.pipe-holder'] });
  const check = result.checks.find((c) => c.id === 'runner.processes.pipe-holder');
  // Skipped when the job ended before /proc showed it (a sandbox ends it with the shell).
  expect(['pass', 'skip']).toContain(check?.status);
}, 60_000);
