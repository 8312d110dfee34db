import { type Check, expectThat } from '../../../harness/check.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import {
  describeSession,
  expectCommandOutput,
  expectIsError,
  jsonAt,
  linesPrinted,
  resultAt,
} from '../expect.js';
import { type InputLine, printing, rawLine, toolUse } from '../lines.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const COUNT =
  'Target contract, runner ("exactly one JSON line per input line, in order"); Runner contract for the shell tool, item 8 (result block)';
const COUNT_RULE =
  'The target contract, for every runner: stdout carries exactly one JSON line per input line, in order, so a driver never waits for an answer that will not come.';
const MALFORMED =
  'Target contract, runner (stdin: "each one `tool_use` block"; stdout: "exactly one JSON line per input line"); not stated: input that is not a tool_use';
const LARGE_COMMAND_BYTES = 1 << 20;
/**
 * The 1 MB command's timeout: the command itself is instant, but a runner may take seconds to
 * take in a megabyte (the SDK's betaBashTool took 8 s here, and timed out at 10 s under load), and
 * a timeout of the runner's own making says nothing about whether a long command runs.
 */
const LARGE_COMMAND_TIMEOUT_S = 30;
/**
 * The plain commands around the lines under test, and the one before the 1 MB comment: each
 * prints a word its text does not hold, so a runner that shows commands without running them
 * does not seem to answer them (see `printing`).
 */
const BEFORE = printing('before', 'ok');
const AFTER = printing('after', 'ok');
const BIG = printing('big', 'ok');

/**
 * Lines the stdin contract does not cover (it promises tool_use blocks with a string
 * command), between two it does; each with why it is malformed. The line after them shows
 * whether the runner is still there.
 */
function malformedLines(): { lines: InputLine[]; malformed: { index: number; what: string }[] } {
  const withId = (input: unknown, id: string) =>
    rawLine(JSON.stringify({ type: 'tool_use', id, name: 'bash', input }), id);
  const malformed: [InputLine, string][] = [
    [rawLine('this is not json'), 'a line that is not JSON'],
    [rawLine('{}'), 'an empty object'],
    [withId({}, 'toolu_wc_no_command'), 'a tool_use without a command'],
    [withId({ command: 42 }, 'toolu_wc_number_command'), 'a tool_use whose command is a number'],
    [rawLine('[1,2,3]'), 'a JSON array'],
    [
      rawLine('{"type":"tool_use","id":"toolu_wc_cut","name":"bash","input":{"command":"echo hi"'),
      'a tool_use cut short',
    ],
  ];
  const lines = [toolUse(BEFORE.command), ...malformed.map(([line]) => line), toolUse(AFTER.command)];
  return { lines, malformed: malformed.map(([, what], i) => ({ index: i + 1, what })) };
}

function malformedSession(ctx: RunnerCtx, asker: SessionAsker) {
  return ctx.shared('malformed-lines', asker, async () => {
    const { lines, malformed } = malformedLines();
    const run = await ctx.run({
      lines,
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(lines.length),
      signal: asker.signal,
    });
    return { run, malformed };
  });
}

/**
 * Valid tool_use blocks only: a command no shell argument can carry (a NUL byte, `\u0000` in
 * the JSON) between two plain ones. Apart from the malformed lines, so that a runner that
 * stops at input outside the contract is still judged on the input inside it.
 */
function nulCommandSession(ctx: RunnerCtx, asker: SessionAsker): Promise<SessionRun> {
  return ctx.shared('nul-command', asker, () => {
    const lines = [toolUse(BEFORE.command), toolUse('echo a\u0000b'), toolUse(AFTER.command)];
    return ctx.run({
      lines,
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(lines.length),
      signal: asker.signal,
    });
  });
}

function expectCount(run: SessionRun, what: string): void {
  expectThat(
    linesPrinted(run) === run.spec.lines.length,
    `${what}: ${describeSession(run)}`,
    `${run.spec.lines.length} result lines`,
    `${linesPrinted(run)}`,
  );
}

/** One JSON line for each input line, and the plain commands first and last answered in place. */
function expectAnsweredInPlace(run: SessionRun, what: string): void {
  expectCount(run, what);
  for (let i = 0; i < run.spec.lines.length; i++) jsonAt(run, i, `input line ${i + 1}`);
  expectCommandOutput(resultAt(run, 0, BEFORE.command), BEFORE.output, BEFORE.command);
  const last = run.spec.lines.length - 1;
  expectCommandOutput(resultAt(run, last, AFTER.command), AFTER.output, `${AFTER.command}, after ${what}`);
}

export const inputChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.input.bad-lines-answered',
    clause: COUNT,
    description:
      'A valid bash tool_use whose command no shell can run as given (it holds a NUL byte) gets one JSON line, and the lines around it are answered in place.',
    level: 'must',
    basis: 'contract',
    rule: `${COUNT_RULE} A command holding a NUL byte is a string like any other, so its line is answered too.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectAnsweredInPlace(await nulCommandSession(ctx, env), 'a command holding a NUL byte');
    },
  },
  {
    id: 'runner.input.malformed-lines-answered',
    clause: MALFORMED,
    description:
      'Lines that are not a bash tool_use with a string command (not JSON, wrong shape, no command, a numeric command, cut short) each get one JSON line, and the lines around them are answered in place.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The target contract promises the runner tool_use blocks with a string command, so no rule binds a runner on a line that is not one: stopping there breaks none. Still, a runner should answer every line it is given with one JSON line, whatever the line holds, so that a driver never waits for an answer that will not come.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await malformedSession(ctx, env);
      expectAnsweredInPlace(run, 'the malformed lines');
    },
  },
  {
    id: 'runner.input.bad-lines-are-errors',
    clause: `${MALFORMED}; Runner contract for the shell tool, item 7 (is_error)`,
    description:
      'Each line that is not a bash tool_use with a string command is answered by a tool_result with is_error true (with its id where it has one).',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec does not say how a runner answers input that is not a bash tool_use. Since nothing could run, the answer should be a tool_result with is_error true, carrying the id where the line has one.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run, malformed } = await malformedSession(ctx, env);
      for (const { index, what } of malformed) expectIsError(resultAt(run, index, what), true, what);
    },
  },
  {
    id: 'runner.input.large-command-answered',
    clause: COUNT,
    description: 'A command of 1 MB gets its own result line and the next line is answered in place.',
    level: 'must',
    basis: 'contract',
    rule: COUNT_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const run = await largeCommandSession(ctx, env);
      expectCount(run, 'a 1 MB command');
      resultAt(run, 0, 'a 1 MB command');
      expectCommandOutput(
        resultAt(run, 1, AFTER.command),
        AFTER.output,
        `${AFTER.command}, after a 1 MB command`,
      );
    },
  },
  {
    id: 'runner.input.large-command-runs',
    clause:
      'Runner contract for the shell tool, item 2 (Execution); not stated: a limit on the size of a command',
    description: 'A command of 1 MB (a long comment) runs like any other.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec sets no limit on the size of a command. A long command (1 MB, more than one argv string may hold) should run like any other, e.g. passed to the shell through a file or a pipe.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const run = await largeCommandSession(ctx, env);
      const result = resultAt(run, 0, 'a 1 MB command');
      expectIsError(result, false, 'a 1 MB command');
      expectCommandOutput(result, BIG.output, `${BIG.command} followed by a 1 MB comment`);
    },
  },
];

function largeCommandSession(ctx: RunnerCtx, asker: SessionAsker): Promise<SessionRun> {
  return ctx.shared('large-command', asker, () =>
    ctx.run({
      lines: [toolUse(`${BIG.command} # ${'x'.repeat(LARGE_COMMAND_BYTES)}`), toolUse(AFTER.command)],
      timeoutS: LARGE_COMMAND_TIMEOUT_S,
      // Within the check's CASE_BUDGET_MS with a slow runner's allowance (MAX_SLOW_RUNNER_ALLOWANCE_MS)
      // added: a runner still taking the command in after that is cut, not exercised.
      budgetMs: quickBudgetMs(2, 20_000),
      signal: asker.signal,
    }),
  );
}
