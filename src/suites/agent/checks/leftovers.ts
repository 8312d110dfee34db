import type { Check } from '../../../harness/check.js';
import { noneLeftCheck } from '../../../harness/containment/index.js';
import { quotedCommand } from '../../target-secrets.js';
import type { AgentCtx } from '../context.js';

export const leftoverChecks: Check<AgentCtx>[] = [
  noneLeftCheck<AgentCtx>({
    suite: 'agent',
    what: (ctx) => `the agent command ${quotedCommand(ctx.target.agent)}`,
    ledger: (ctx) => ctx.leftovers,
    clause:
      'Limits ("recommended environment controls for the runner: ephemeral container or micro virtual machine destroyed at session end"); target contract, agent (run once per case)',
    rule: "The spec recommends (does not require) running the loop's commands in an environment destroyed at the end of the session. Following that recommendation, no process an agent run started (its bash commands, their setsid escapees, helpers of its own) is still running once the agent has exited, in any case of the run.",
  }),
];
