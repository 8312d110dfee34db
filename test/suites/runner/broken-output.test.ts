import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { runnerSuite } from '../../../src/suites/runner/index.js';
import {
  type BrokenCase,
  brokenCaseTitle,
  expectedStatuses,
  runAgainst,
  runBrokenCase,
  runnerCommand,
  statusById,
} from './helpers.js';

// Each broken runner (runners/<name>.mjs: the independent runner with one flaw) runs the
// checks of its rule family plus neighbours it must still pass, so a failure is shown to
// come from the flaw and not from a suite that fails everything.
const CASES: BrokenCase[] = [
  {
    runner: 'cut-by-characters',
    flaw: 'truncates at 65536 characters instead of bytes',
    fails: ['truncation.char-boundary', 'truncation.generated'],
    passes: ['truncation.at-limit', 'truncation.over-limit', 'truncation.large-output'],
  },
  {
    runner: 'replacement-at-cut',
    flaw: 'cuts at 65536 bytes through the middle of a character',
    fails: ['truncation.char-boundary'],
    passes: ['truncation.over-limit'],
  },
  {
    runner: 'no-separator',
    flaw: 'joins stdout and stderr without the separator',
    fails: ['output.stdout-and-stderr'],
    passes: ['output.stderr-only', 'output.stdout-only'],
  },
  {
    runner: 'always-separator',
    flaw: 'puts the separator in when stdout is empty',
    fails: ['output.stderr-only'],
    passes: ['output.stdout-and-stderr'],
  },
  {
    runner: 'is-error-on-stderr',
    flaw: 'sets is_error when stderr is non-empty',
    fails: ['exit-status.stderr-not-error', 'output.stdout-and-stderr'],
    passes: ['exit-status.is-error-iff-nonzero', 'exit-status.signal-death'],
  },
  {
    runner: 'empty-blank-text',
    flaw: 'answers blank output with an empty text',
    fails: ['output.blank'],
    warns: ['output.whitespace-only'],
    passes: ['output.stdout-only'],
  },
  {
    runner: 'no-refusal',
    flaw: 'has no blocklist',
    fails: [
      'refusal.rm-rf-root',
      'refusal.fork-bomb',
      'refusal.mkfs',
      'refusal.dd-if',
      'refusal.dev-sda',
      'refusal.chmod-777-root',
      'refusal.embedded',
    ],
    warns: ['refusal.variants'],
    passes: ['refusal.harmless-runs', 'refusal.no-false-positive'],
  },
  {
    runner: 'two-substrings-case-sensitive',
    flaw: 'checks only the first two substrings, case-sensitively (like one reference runner)',
    fails: ['refusal.mkfs', 'refusal.dd-if', 'refusal.dev-sda', 'refusal.chmod-777-root', 'refusal.embedded'],
    warns: ['refusal.variants'],
    passes: ['refusal.rm-rf-root', 'refusal.fork-bomb', 'refusal.harmless-runs'],
  },
  {
    runner: 'skip-bad-lines',
    flaw: 'prints nothing for a line that is not a valid tool_use',
    fails: ['input.bad-lines-answered'],
    warns: ['input.bad-lines-are-errors'],
    passes: ['input.large-command-answered'],
  },
];

describe('the suite fails runners that break an output, refusal or input rule', () => {
  for (const c of CASES) {
    test(brokenCaseTitle(c), async () => {
      expect(statusById(await runBrokenCase(c))).toEqual(expectedStatuses(c));
    }, 60_000);
  }
});

test('a failure names what was expected and what the runner did', async () => {
  const result = await runAgainst(runnerCommand('always-separator'), { only: ['runner.output.stderr-only'] });
  const check = result.checks[0]!;
  expect(check.message).toContain('the content differs');
  expect(check.expected).toBe(JSON.stringify('err\n'));
  expect(check.actual).toBe(JSON.stringify('\n--- STDERR ---\nerr\n'));
  expect(check.reproduce).toContain('--only runner.output.stderr-only');
}, 60_000);

test('a command that cannot be started makes the target unavailable', async () => {
  await expect(
    runSuite(runnerSuite, { runner: 'wirecheck-no-such-command-4711' }, { seed: 1, runs: 1 }),
  ).rejects.toBeInstanceOf(TargetUnavailable);
}, 30_000);
