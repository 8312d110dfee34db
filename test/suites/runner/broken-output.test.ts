import { describe, expect, test } from 'vitest';
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
    runner: 'answers-ok',
    flaw: 'answers every command "ok" without running it, and so gives the value checks nothing to judge:',
    fails: [],
    skips: [
      'environment.home',
      'environment.user',
      'environment.path',
      'environment.no-inherited-variables',
      'flood.memory-bounded',
    ],
    passes: [],
  },
  {
    runner: 'inherit-env',
    flaw: 'gives commands its own environment (PATH, HOME and USER its own)',
    fails: [],
    warns: ['environment.no-inherited-variables'],
    passes: ['environment.path', 'environment.home'],
  },
  {
    runner: 'inherit-user',
    flaw: 'gives commands its own USER instead of a fixed one',
    fails: [],
    warns: ['environment.user'],
    passes: ['environment.path', 'environment.home', 'environment.no-inherited-variables'],
  },
  {
    runner: 'inherit-path',
    flaw: 'gives commands its own PATH instead of a minimal one',
    fails: [],
    warns: ['environment.path'],
    passes: ['environment.user', 'environment.home', 'environment.no-inherited-variables'],
  },
  {
    runner: 'cut-by-characters',
    flaw: 'truncates at 65536 characters instead of bytes',
    fails: ['truncation.by-bytes', 'truncation.generated'],
    warns: ['truncation.char-boundary'],
    passes: ['truncation.at-limit', 'truncation.over-limit', 'truncation.large-output'],
  },
  {
    runner: 'bare-note',
    flaw: 'cuts output exactly and appends a note that does not name the limit ("[output truncated]")',
    fails: [],
    // The note's words are the runner's: the musts ask that it says the output was cut.
    warns: ['truncation.note-names-limit'],
    passes: [
      'truncation.over-limit',
      'truncation.by-bytes',
      'truncation.large-output',
      'truncation.generated',
      'truncation.invalid-utf8',
    ],
  },
  {
    runner: 'replacement-at-cut',
    flaw: 'cuts at 65536 bytes through the middle of a character (a reading the spec allows)',
    fails: [],
    warns: ['truncation.char-boundary'],
    passes: ['truncation.over-limit', 'truncation.by-bytes'],
  },
  {
    runner: 'uncut-invalid-utf8',
    flaw: 'returns output that is not valid UTF-8 whole, without the note (its cut bails out on a strict decode)',
    fails: [],
    warns: ['truncation.invalid-utf8'],
    // Valid output is cut as usual, and short output with bad bytes is kept.
    passes: ['truncation.over-limit', 'output.invalid-utf8'],
  },
  {
    runner: 'uncut-invalid-utf8-noted',
    flaw: 'returns output that is not valid UTF-8 whole, with the note but never cut',
    fails: [],
    warns: ['truncation.invalid-utf8'],
    passes: ['truncation.over-limit', 'output.invalid-utf8'],
  },
  {
    runner: 'no-separator',
    flaw: 'joins stdout and stderr without the separator',
    fails: ['output.stdout-and-stderr', 'output.failure-with-stderr'],
    passes: ['output.stderr-only', 'output.stdout-only'],
  },
  {
    runner: 'trim-trailing-newlines',
    flaw: "drops the trailing line breaks of the output (as the official SDK's bash tool does)",
    fails: ['output.stdout-only', 'output.stdout-and-stderr', 'output.stderr-only'],
    // Their rules are the ids and order, input handling, refusal, is_error and bytes that are
    // not UTF-8: the trailing line break is the runner.output checks' to judge, once.
    passes: [
      'results.ids-in-order',
      'input.bad-lines-answered',
      'input.malformed-lines-answered',
      'input.large-command-answered',
      'input.large-command-runs',
      'refusal.harmless-runs',
      'exit-status.is-error-iff-nonzero',
      'output.invalid-utf8',
    ],
    // One shell per command: a restart has no shell state to discard.
    skips: ['restart.fresh-session'],
  },
  {
    runner: 'keep-exports-trimmed',
    flaw: 'drops the trailing line breaks of the output, and keeps exports for the next command until a restart',
    fails: ['output.stdout-only'],
    // The variable read with and without a restart, judged without its line break too.
    passes: ['restart.fresh-session'],
  },
  {
    runner: 'strict-utf8',
    flaw: 'dies on output bytes that are not UTF-8 (a strict decoder)',
    fails: [],
    warns: ['output.invalid-utf8'],
    // Those bytes come last in their session: the lines before them are judged as usual.
    passes: [
      'output.failure-with-stderr',
      'output.stdout-and-stderr',
      'output.stderr-only',
      'output.blank',
      'exit-status.is-error-iff-nonzero',
    ],
  },
  {
    runner: 'always-separator',
    flaw: 'puts the separator in when stdout is empty',
    fails: ['output.stderr-only', 'output.failure-with-stderr'],
    passes: ['output.stdout-and-stderr'],
  },
  {
    runner: 'failure-stderr-only',
    flaw: "answers a failing command with its stderr alone, dropping stdout (the reference demo's habit)",
    fails: ['output.failure-with-stderr', 'exit-status.is-error-iff-nonzero'],
    passes: ['output.stdout-and-stderr', 'output.stderr-only', 'exit-status.stderr-not-error'],
  },
  {
    runner: 'is-error-on-stderr',
    flaw: 'sets is_error when stderr is non-empty',
    fails: ['exit-status.stderr-not-error', 'output.stdout-and-stderr'],
    passes: ['exit-status.is-error-iff-nonzero', 'exit-status.signal-death', 'output.failure-with-stderr'],
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
    fails: ['refusal.rm-rf-root', 'refusal.fork-bomb', 'refusal.embedded'],
    warns: [
      'refusal.mkfs',
      'refusal.dd-if',
      'refusal.dev-sda',
      'refusal.chmod-777-root',
      'refusal.embedded-other',
      'refusal.variants',
    ],
    passes: ['refusal.harmless-runs', 'refusal.no-false-positive'],
  },
  {
    runner: 'two-substrings-case-sensitive',
    flaw: 'checks only the first two substrings, case-sensitively (like one reference runner)',
    fails: [],
    warns: [
      'refusal.mkfs',
      'refusal.dd-if',
      'refusal.dev-sda',
      'refusal.chmod-777-root',
      'refusal.embedded-other',
      'refusal.variants',
    ],
    passes: ['refusal.rm-rf-root', 'refusal.fork-bomb', 'refusal.embedded', 'refusal.harmless-runs'],
  },
  {
    // Those lines are outside the stdin contract (tool_use blocks with a string command): no must binds there.
    runner: 'skip-bad-lines',
    flaw: 'prints nothing for a line that is not a valid tool_use',
    fails: [],
    warns: ['input.malformed-lines-answered', 'input.bad-lines-are-errors'],
    passes: ['input.bad-lines-answered', 'input.large-command-answered'],
  },
  {
    runner: 'die-on-bad-line',
    flaw: "exits with an error at the first line that is not a valid tool_use (a Python runner's json.loads raising)",
    fails: [],
    warns: ['input.malformed-lines-answered', 'input.bad-lines-are-errors'],
    // Every valid tool_use is answered, a command holding a NUL byte included.
    passes: ['input.bad-lines-answered', 'input.large-command-answered', 'results.ids-in-order'],
  },
  {
    runner: 'labelled-output',
    flaw: 'labels its output "STDOUT:\\n...\\nSTDERR:\\n..." instead of the separator (breaks item 4 only)',
    fails: ['output.stdout-only', 'output.stdout-and-stderr', 'output.stderr-only'],
    // The checks of other rules find the command's output in the labelled text.
    passes: [
      'results.ids-in-order',
      'refusal.harmless-runs',
      'input.bad-lines-answered',
      'input.large-command-answered',
      'execution.not-root',
    ],
  },
  {
    runner: 'latest-id',
    flaw: 'queues each command as its line is read and answers it with the id of the line read last',
    fails: ['results.ids-in-order'],
    // The last line's answer carries its own id, and so does the one line of a session of one.
    passes: ['results.exits-on-eof', 'truncation.invalid-utf8'],
  },
  {
    runner: 'stay-alive-after-eof',
    flaw: 'answers every line, then stays alive a minute after stdin closes',
    fails: ['results.exits-on-eof'],
    // One session: each waits the harness's 10 s for an exit that does not come.
    passes: ['output.stdout-only'],
    // The preflight's session and the two checks' sessions: 10 s of waiting each.
    timeoutMs: 120_000,
  },
  {
    runner: 'blocklist-empty-entry',
    flaw: 'refuses every command: its blocklist, split from a text ending in a line break, holds the empty string',
    fails: ['refusal.harmless-runs'],
    warns: ['refusal.no-false-positive'],
    passes: ['refusal.rm-rf-root', 'refusal.fork-bomb', 'refusal.embedded'],
  },
  {
    runner: 'signal-as-exit-0',
    flaw: "reads a shell killed by a signal as exit code 0 (Node's null exit code)",
    fails: ['exit-status.signal-death'],
    passes: ['exit-status.is-error-iff-nonzero', 'exit-status.stderr-not-error'],
  },
  {
    runner: 'shell-ignores-term',
    flaw: 'runs commands in a shell that ignores SIGTERM, as an interactive one does (kill -TERM $$ survived, exit 0: not an error)',
    passes: ['exit-status.signal-death', 'exit-status.is-error-iff-nonzero'],
  },
  {
    runner: 'note-at-limit',
    flaw: 'appends the truncation note to output of exactly 65536 bytes (an off-by-one)',
    fails: ['truncation.at-limit'],
    passes: ['truncation.over-limit', 'truncation.large-output', 'truncation.generated'],
  },
  {
    runner: 'cut-past-limit',
    flaw: 'returns output of 65537 bytes whole, without the note (an off-by-one: only more is cut)',
    fails: ['truncation.over-limit'],
    passes: ['truncation.at-limit', 'truncation.large-output'],
  },
  {
    runner: 'max-buffer-512k',
    flaw: "kills a command past 512 KiB of output and answers an error (Node exec's maxBuffer)",
    fails: ['truncation.large-output'],
    passes: ['truncation.at-limit', 'truncation.over-limit', 'truncation.by-bytes'],
  },
  {
    runner: 'line-limit-64k',
    flaw: 'dies on an input line over 64 KiB (a line reader with a fixed limit, as asyncio has)',
    fails: ['input.large-command-answered'],
    warns: ['input.large-command-runs'],
    passes: ['input.bad-lines-answered', 'results.ids-in-order'],
  },
  {
    runner: 'crash-on-bad-workdir',
    flaw: 'crashes when WIRECHECK_WORKDIR cannot be created',
    fails: ['spawn-failure.error-result'],
    passes: ['output.stdout-only'],
  },
  {
    runner: 'keep-output',
    flaw: 'holds up to 384 MiB of output in memory while keeping 64 KB of it',
    fails: [],
    warns: ['flood.memory-bounded'],
    passes: ['flood.timeout-result', 'flood.output-kept'],
  },
  {
    runner: 'timeout-drops-output',
    flaw: 'answers a timed-out command with the timeout text alone, dropping the output so far',
    fails: [],
    warns: ['flood.output-kept'],
    // Its memory is judged whatever the result holds (flood-hoard.test.ts).
    passes: ['flood.timeout-result'],
  },
  {
    runner: 'keep-output-slow-reads',
    flaw: 'holds the output it reads, but reads so little of the flood that keeping it stays under the bound:',
    fails: [],
    skips: ['flood.memory-bounded'],
    passes: ['flood.timeout-result', 'flood.output-kept'],
  },
];

describe('the suite fails runners that break an output, refusal or input rule', () => {
  for (const c of CASES) {
    test(
      brokenCaseTitle(c),
      async () => {
        expect(statusById(await runBrokenCase(c))).toEqual(expectedStatuses(c));
      },
      c.timeoutMs ?? 60_000,
    );
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

// The rest of env's output is the user's environment, and may hold their secrets: its PATH line
// too, for a runner that passes the whole of it on (PATH holds the harness's entry).
for (const runner of ['inherit-env', 'inherit-all-env']) {
  test(`${runner}: an inherited variable's warning quotes only the canary's line of env, none of the user's environment`, async () => {
    const id = 'runner.environment.no-inherited-variables';
    const result = await runAgainst(runnerCommand(runner), { only: [id] });
    const check = result.checks.find((c) => c.id === id);
    expect(check?.status).toBe('warn');
    expect(check?.actual).toMatch(/^"WIRECHECK_RUNNER_CANARY=wirecheck-canary-[0-9a-f]{12}"$/);
  }, 60_000);
}
