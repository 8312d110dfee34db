import { expect, test } from 'vitest';
import { runAgainst, runnerCommand } from './helpers.js';

// A runner that keeps the whole flood of `yes` in memory yet answers with the timeout text
// alone still held the flood: its memory is judged on what its group read and grew, not on the
// text. How much a 2 s flood gets read depends on the machine's load, so the check may still be
// not exercised, but only for having read too little, never for the text.
test('a runner that hoards the flood and answers with the timeout text alone is judged on its memory', async () => {
  const result = await runAgainst(runnerCommand('keep-output-timeout-text'), {
    only: ['runner.flood.memory-bounded'],
  });
  const check = result.checks.find((c) => c.id === 'runner.flood.memory-bounded');
  expect(check?.message ?? '').not.toMatch(/holds none of its output/);
  if (check?.status === 'skip') expect(check.message).toMatch(/process group read .* while `yes` ran/);
  else expect(check?.status).toBe('warn');
}, 60_000);

test('a runner that never runs the command is not exercised by what its group read', async () => {
  const result = await runAgainst(runnerCommand('answers-ok'), { only: ['runner.flood.memory-bounded'] });
  const check = result.checks.find((c) => c.id === 'runner.flood.memory-bounded');
  expect(check?.status).toBe('skip');
  expect(check?.message).toMatch(/process group read .* while `yes` ran|could not be measured/);
}, 60_000);
