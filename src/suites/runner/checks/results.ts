import fc from 'fast-check';
import { type Check, expectThat } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx } from '../context.js';
import { describeSession, expectCommandOutput, linesPrinted, resultAt } from '../expect.js';
import { printing, toolUse } from '../lines.js';
import { EXIT_WAIT_MS } from '../session.js';
import { CASE_BUDGET_MS, PROPERTY_BUDGET_MS, quickBudgetMs } from './common.js';

const CLAUSE =
  'Runner contract for the shell tool, item 8 (result block); Tool-use loop (one tool_result per tool_use, same id); target contract, runner (one line per input line, in order)';

/**
 * A tool_use id: mostly the real API's shape, sometimes any non-empty string (quotes,
 * backslashes, non-ASCII), which a runner must echo unchanged all the same.
 */
const arbId = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^toolu_[A-Za-z0-9]{1,30}$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }) },
);

export const resultChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.results.ids-in-order',
    clause: CLAUSE,
    description:
      'Several tool_use lines get one tool_result line each, in order, each with tool_use_id equal to the id of the tool_use it answers.',
    level: 'must',
    basis: 'contract',
    rule: 'The target contract and the spec, for every runner: each tool_use line is answered by exactly one tool_result line, in input order, whose tool_use_id equals the id of the tool_use it answers, whatever characters the id holds.',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await checkProperty(
        env,
        fc.uniqueArray(arbId, { minLength: 2, maxLength: 6 }),
        async (ids) => {
          // Output that is not in the command's text: a runner that echoes commands back has not answered them.
          const commands = ids.map((_, i) => printing('line', i + 1));
          const lines = ids.map((id, i) => toolUse(commands[i]!.command, { id }));
          const run = await ctx.run({
            lines,
            timeoutS: ORDINARY_TIMEOUT_S,
            budgetMs: quickBudgetMs(lines.length),
            signal: env.signal,
          });
          expectThat(
            linesPrinted(run) === lines.length,
            `${lines.length} tool_use lines were not answered by as many result lines: ${describeSession(run)}`,
            `${lines.length} lines`,
            `${linesPrinted(run)} lines`,
          );
          for (const [i, { command, output }] of commands.entries()) {
            expectCommandOutput(resultAt(run, i, command), output, command);
          }
        },
        { runs: Math.min(10, ctx.commandRuns(env)), maxShrinkRuns: ctx.shrinkRuns },
      );
    },
  },
  {
    id: 'runner.results.exits-on-eof',
    clause: 'Target contract, runner ("the runner exits when stdin closes")',
    description: 'The runner exits once its stdin is closed and every line is answered.',
    level: 'must',
    basis: 'contract',
    rule: 'The target contract, for every runner: the runner exits when its stdin closes (after answering every line), so a driver knows the session is over.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const run = await ctx.run({
        lines: [toolUse('echo one'), toolUse('echo two')],
        timeoutS: ORDINARY_TIMEOUT_S,
        // The session lasts until the runner exits: room for the whole wait after the answers.
        budgetMs: quickBudgetMs(2, EXIT_WAIT_MS),
        signal: env.signal,
      });
      resultAt(run, 1, 'echo two');
      expectThat(
        run.exitedOnEof,
        `the runner was still running ${EXIT_WAIT_MS / 1000} s after answering its last line with stdin closed: ${describeSession(run)}`,
        `exit within ${EXIT_WAIT_MS / 1000} s after stdin closes`,
        run.budgetExceeded
          ? `still running at the session budget of ${run.spec.budgetMs} ms`
          : `still running ${EXIT_WAIT_MS / 1000} s later`,
      );
    },
  },
];
