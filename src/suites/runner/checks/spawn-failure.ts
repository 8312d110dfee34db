import { type Check, expectThat } from '../../../harness/check.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx } from '../context.js';
import { abbreviate, expectIsError, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

/**
 * "text naming a process execution error": what failed (the process, its execution, or the
 * working directory it was to start in: the case's cause, which a runner may name instead)
 * and that it failed.
 */
export const NAMES_PROCESS = /process|execut|spawn|start|launch|\brun\b|command|director|workdir|\bcwd\b/i;
export const NAMES_FAILURE = /error|fail|cannot|can't|could not|unable/i;

export const spawnFailureChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.spawn-failure.error-result',
    clause:
      'Errors ("process cannot be started: tool_result, is_error true, text naming a process execution error"); Runner contract for the shell tool, item 7 (is_error true on spawn failure); target contract, runner (one line per input line)',
    description:
      'With a WIRECHECK_WORKDIR that cannot be created (a path below a regular file), each command is answered by a tool_result with is_error true and a text naming a process execution error; the runner does not crash or go silent.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: a command whose process cannot be started gets a tool_result with is_error true and a text naming a process execution error; the target contract still wants one result line per input line. A working directory that cannot be created (below a regular file) is such a case.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const run = await ctx.run({
        lines: [toolUse('echo never-runs'), toolUse('echo never-runs-either')],
        timeoutS: ORDINARY_TIMEOUT_S,
        budgetMs: quickBudgetMs(2),
        workdirBelowFile: true,
        signal: env.signal,
      });
      for (const [i, command] of ['echo never-runs', 'echo never-runs-either'].entries()) {
        const what = `${command} with WIRECHECK_WORKDIR ${run.workdir} (below a regular file)`;
        const result = resultAt(run, i, what);
        expectIsError(result, true, what);
        expectThat(
          NAMES_PROCESS.test(result.content) && NAMES_FAILURE.test(result.content),
          `${what}: the text does not name a process execution error`,
          `a text naming a process execution error (matching ${NAMES_PROCESS} and ${NAMES_FAILURE})`,
          abbreviate(result.content),
        );
      }
    },
  },
];
