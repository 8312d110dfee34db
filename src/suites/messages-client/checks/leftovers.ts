import type { Check } from '../../../harness/check.js';
import { noneLeftCheck } from '../../../harness/containment/index.js';
import { quotedCommand } from '../../target-secrets.js';
import type { MessagesClientCtx } from '../context.js';

export const leftoverChecks: Check<MessagesClientCtx>[] = [
  noneLeftCheck<MessagesClientCtx>({
    suite: 'messages-client',
    what: (ctx) => `the client command ${quotedCommand(ctx.target.client)}`,
    ledger: (ctx) => ctx.leftovers,
    clause: 'Not stated by the spec; target contract, messages-client (run once per request, exit when done)',
    rule: 'No text requires it; wirecheck holds a client to the hygiene the spec recommends for a runner (an environment destroyed at the end of the session): a client run that has exited leaves no process of its own running (a setsid helper, a daemon), in any case of the run.',
  }),
];
