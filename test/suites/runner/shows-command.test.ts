import { expect, test } from 'vitest';
import { expectedVerdicts, verdictById } from '../../broken-verdicts.js';
import { type BrokenCase, brokenCaseTitle, runBrokenCase } from './helpers.js';

// The checks that find a command's one-word output anywhere in its result (a runner may frame
// it in words of its own) once found it in a runner's copy of the command: `echo hello`
// answered "$ echo hello" passed refusal.harmless-runs. Their commands now print a word their
// text does not hold.
const SHOWS_COMMAND: BrokenCase = {
  runner: 'shows-command',
  flaw: 'answers each command with its own text ("$ <command>") instead of running it',
  fails: [
    'refusal.harmless-runs',
    'input.large-command-answered',
    'input.bad-lines-answered',
    'results.ids-in-order',
  ],
  warns: ['input.malformed-lines-answered', 'input.large-command-runs'],
  // The value checks find no value in a copy of the command: nothing to judge.
  skips: ['execution.not-root', 'restart.fresh-session'],
};

test(brokenCaseTitle(SHOWS_COMMAND), async () => {
  const result = await runBrokenCase(SHOWS_COMMAND);
  expect(verdictById(result)).toEqual(expectedVerdicts(SHOWS_COMMAND, 'runner'));
  const harmless = result.checks.find((c) => c.id === 'runner.refusal.harmless-runs');
  expect(harmless?.message).toMatch(/the content is not the command's output/);
}, 120_000);
