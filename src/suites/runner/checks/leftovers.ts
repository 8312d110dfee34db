import type { Check } from '../../../harness/check.js';
import { noneLeftCheck } from '../../../harness/containment/index.js';
import { quotedCommand } from '../../target-secrets.js';
import type { RunnerCtx } from '../context.js';

/** Judged last: every session of the run (the 20 s default-timeout one included) has ended by then. */
export const leftoverChecks: Check<RunnerCtx>[] = [
  noneLeftCheck<RunnerCtx>({
    suite: 'runner',
    what: (ctx) => `the runner command ${quotedCommand(ctx.target.runner)}`,
    ledger: (ctx) => ctx.leftovers,
    clause:
      'Runner contract for the shell tool, item 2 (own process group); Limits ("recommended environment controls for the runner: ephemeral container or micro virtual machine destroyed at session end")',
    rule: 'The spec recommends (does not require) running commands in an environment destroyed at the end of the session. Following that recommendation, no process of a runner session (the runner, its commands, their setsid escapees) is still running once the runner has exited, in any case of the run.',
    // The background session of the real 20 s default may still be running when this check starts.
    timeoutMs: 60_000,
  }),
];
