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
import { type InputLine, rawLine, toolUse } from '../lines.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const COUNT =
  'Target contract, runner ("exactly one JSON line per input line, in order"); Runner contract for the shell tool, item 8 (result block)';
const COUNT_RULE =
  'The target contract, for every runner: stdout carries exactly one JSON line per input line, in order, whatever the line holds, so a driver never waits for an answer that will not come.';
const LARGE_COMMAND_BYTES = 1 << 20;

/** Lines a runner cannot run, between two it can; each bad one with why it is bad. */
function badLines(): { lines: InputLine[]; bad: { index: number; what: string }[] } {
  const withId = (input: unknown, id: string) =>
    rawLine(JSON.stringify({ type: 'tool_use', id, name: 'bash', input }), id);
  const bad: [InputLine, string][] = [
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
  const lines = [
    toolUse('echo before'),
    ...bad.map(([line]) => line),
    toolUse('echo a\u0000b'),
    toolUse('echo after'),
  ];
  return { lines, bad: bad.map(([, what], i) => ({ index: i + 1, what })) };
}

function badLineSession(ctx: RunnerCtx, asker: SessionAsker) {
  return ctx.shared('bad-lines', asker, async () => {
    const { lines, bad } = badLines();
    const run = await ctx.run({
      lines,
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(lines.length),
      signal: asker.signal,
    });
    return { run, bad };
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

export const inputChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.input.bad-lines-answered',
    clause: COUNT,
    description:
      'Lines that are not a valid bash tool_use (not JSON, wrong shape, no command, a NUL byte) each get one JSON line, and the lines around them are answered in place.',
    level: 'must',
    basis: 'contract',
    rule: COUNT_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await badLineSession(ctx, env);
      expectCount(run, 'bad input lines');
      for (let i = 0; i < run.spec.lines.length; i++) jsonAt(run, i, `input line ${i + 1}`);
      expectCommandOutput(resultAt(run, 0, 'echo before'), 'before\n', 'echo before');
      const last = run.spec.lines.length - 1;
      expectCommandOutput(resultAt(run, last, 'echo after'), 'after\n', 'echo after, after the bad lines');
    },
  },
  {
    id: 'runner.input.bad-lines-are-errors',
    clause: `${COUNT}; Runner contract for the shell tool, item 7 (is_error); not stated: input that is not a tool_use`,
    description:
      'Each line that is not a valid bash tool_use is answered by a tool_result with is_error true (with its id where it has one).',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec does not say how a runner answers input that is not a bash tool_use. Since nothing could run, the answer should be a tool_result with is_error true, carrying the id where the line has one.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run, bad } = await badLineSession(ctx, env);
      for (const { index, what } of bad) expectIsError(resultAt(run, index, what), true, what);
      resultAt(run, bad.length + 1, 'a command holding a NUL byte');
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
      expectCommandOutput(resultAt(run, 1, 'echo after'), 'after\n', 'echo after, after a 1 MB command');
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
      expectCommandOutput(result, 'big-ok\n', 'echo big-ok followed by a 1 MB comment');
    },
  },
];

function largeCommandSession(ctx: RunnerCtx, asker: SessionAsker): Promise<SessionRun> {
  return ctx.shared('large-command', asker, () =>
    ctx.run({
      lines: [toolUse(`echo big-ok # ${'x'.repeat(LARGE_COMMAND_BYTES)}`), toolUse('echo after')],
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(2, 5000),
      signal: asker.signal,
    }),
  );
}
