import { type Check, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx } from '../context.js';
import { abbreviate, expectIsError, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const CLAUSE =
  'Runner contract for the shell tool, item 7 (is_error exactly when the exit code is not 0); Errors (shell command fails)';

/** Exit codes of the quick tier: the edges, the shell's own and signal-like ones; --full runs all 256. */
const SPREAD = [0, 1, 2, 3, 7, 42, 64, 100, 125, 126, 127, 128, 129, 130, 137, 143, 200, 254, 255];

/** A shell that is pid 1 of a PID namespace cannot kill itself: the signal is ignored. */
const UNLESS_PID_ONE = 'if [ $$ -eq 1 ]; then echo pid-one; exit 0; fi';
const SIGNALS = ['KILL', 'TERM'] as const;

export const exitStatusChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.exit-status.is-error-iff-nonzero',
    clause: CLAUSE,
    description:
      'is_error is true exactly when the exit code is not 0 (a spread of codes; all 0-255 with --full), and the output of a failing command is in its result.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: is_error is true exactly when the exit code is not 0, and a failing command still gets its captured output as content (the loop continues with it).',
    // --full: 256 lines, each allowed a second by the session budget.
    timeoutMs: 300_000,
    async run(ctx, env) {
      const codes = env.full ? Array.from({ length: 256 }, (_, i) => i) : SPREAD;
      const run = await ctx.run({
        lines: codes.map((code) => toolUse(`echo code ${code}; exit ${code}`)),
        timeoutS: ORDINARY_TIMEOUT_S,
        budgetMs: quickBudgetMs(codes.length),
        signal: env.signal,
      });
      for (const [i, code] of codes.entries()) {
        const what = `exit ${code}`;
        const result = resultAt(run, i, what);
        expectIsError(result, code !== 0, what);
        // Its own line, with or without the trailing line break (the runner.output checks
        // judge that): the exit note's "exit code N" does not count.
        expectThat(
          new RegExp(`(^|\n)code ${code}(\n|$)`).test(result.content),
          `${what}: the output of the command is not in the result`,
          `the line "code ${code}" in the content`,
          abbreviate(result.content),
        );
      }
    },
  },
  {
    id: 'runner.exit-status.signal-death',
    clause: CLAUSE,
    description:
      'A command whose shell is killed by a signal (kill -9 $$, kill -TERM $$) is an error; a signal the shell survives (an interactive shell ignores SIGTERM) is not judged.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: is_error is true exactly when the exit code is not 0; a shell killed by a signal has not exited 0 (its status is 128 plus the signal), so its result is an error.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const run = await ctx.run({
        lines: SIGNALS.map((s) => toolUse(`${UNLESS_PID_ONE}; echo dying; kill -${s} $$; echo survived`)),
        timeoutS: ORDINARY_TIMEOUT_S,
        budgetMs: quickBudgetMs(SIGNALS.length),
        signal: env.signal,
      });
      let judged = 0;
      for (const [i, s] of SIGNALS.entries()) {
        const what = `kill -${s} $$`;
        const result = resultAt(run, i, what);
        if (result.content.startsWith('pid-one')) {
          throw new CheckSkipped('the command shell is pid 1 of a PID namespace, which cannot signal itself');
        }
        // The shell lived on (an interactive shell ignores SIGTERM): it exited 0, no error.
        if (/^survived$/m.test(result.content)) continue;
        expectIsError(result, true, what);
        judged += 1;
      }
      if (judged === 0) {
        throw new NotExercised(
          'the command shell survived every signal sent to it: no signal death to judge',
        );
      }
    },
  },
];
