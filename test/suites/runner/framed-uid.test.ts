import { expect, test } from 'vitest';
import { runAgainst, runnerCommand } from './helpers.js';

// A runner that frames its output in words of its own is judged on the one bare number line of
// `id -u`'s answer; with the exit code framed as a second one, which is the uid cannot be told.
test('a runner that frames the exit code as a second bare number after the output is not exercised on execution.not-root', async () => {
  const id = 'runner.execution.not-root';
  const result = await runAgainst(runnerCommand('labelled-exit-code'), { only: [id] });
  const check = result.checks.find((c) => c.id === id);
  expect([check?.status, check?.skipKind], check?.message).toEqual(['skip', 'not-exercised']);
  expect(check?.message).toMatch(
    /id -u: 2 lines of the result are bare numbers \(.*\): the command's uid was not seen/,
  );
}, 60_000);
