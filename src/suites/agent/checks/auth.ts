import { type Check, CheckFailure } from '../../../harness/check.js';
import { CASE_KEYS } from '../cases.js';
import type { AgentCtx } from '../context.js';
import { CHECK_BUDGET_MS } from '../expect.js';

export const authChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.auth.key-sent',
    clause:
      'Authentication: the key from the environment on every request; target contract, agent (environment as for messages-client: WIRECHECK_API_KEY)',
    description:
      'Every request carries the key from WIRECHECK_API_KEY, in x-api-key or as Authorization: Bearer (which the real API also accepts).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Authentication): the key, read from the environment, goes with every request to the messages service. Every client of the loop sends it, in x-api-key or as Authorization: Bearer (which the real API accepts as well).',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      for (const result of await ctx.results(CASE_KEYS)) {
        result.requests.forEach((request, i) => {
          // The journal keeps no key; it says which headers carried the run's key.
          if (request.configuredKeyIn.length > 0) return;
          throw new CheckFailure(
            `case ${result.spec.name}, request ${i + 1}: the request must carry the key from WIRECHECK_API_KEY (the mock answered status ${request.status ?? 'none'})`,
            'x-api-key: <the key in WIRECHECK_API_KEY>',
            `x-api-key: ${request.headers['x-api-key'] ?? '(none)'}; authorization: ${request.headers.authorization ?? '(none)'}`,
          );
        });
      }
    },
  },
];
