import type { Check } from '../../../harness/check.js';
import { noneLeftCheck } from '../../../harness/containment/index.js';
import { quotedCommand } from '../../target-secrets.js';
import type { ToolClientCtx } from '../context.js';

export const leftoverChecks: Check<ToolClientCtx>[] = [
  noneLeftCheck<ToolClientCtx>({
    suite: 'tool-client',
    what: (ctx) => `the client command ${quotedCommand(ctx.target.client)}`,
    ledger: (ctx) => ctx.leftovers,
    clause:
      'Not stated by the spec; MCP 2024-11-05 lifecycle, shutdown over stdio (the client ends the server process it started)',
    rule: 'No text requires it; MCP 2024-11-05 has a stdio client end the server process it started (close its stdin, then SIGTERM, then SIGKILL), and wirecheck applies that hygiene to everything a client starts: a client run that has exited leaves no process running (a stdio server it started in a group of its own, a setsid helper), in any case of the run.',
  }),
];
