import { type Check, CheckFailure, NotExercised, show } from '../../../harness/check.js';
import type { JournalEntry } from '../../../mocks/messages/index.js';
import { VERSION_HEADERS } from '../../../mocks/messages/request-headers.js';
import { expectSpecVersionValue, SPEC_VERSION } from '../../version-value.js';
import { CASE_KEYS } from '../cases.js';
import type { AgentCaseResult, AgentCtx } from '../context.js';
import { CHECK_BUDGET_MS } from '../expect.js';

const REQUEST_HEADERS =
  'Endpoints, POST /v1/messages ("Request headers: x-api-key: <API_KEY>; a service-version header (service-version, value 2023-06-01); content-type: application/json")';

/** Every request of the loop of every case, with a label naming it. */
async function loopRequests(
  ctx: AgentCtx,
): Promise<{ result: AgentCaseResult; label: string; request: JournalEntry }[]> {
  return (await ctx.results(CASE_KEYS)).flatMap((result) =>
    result.requests.map((request, i) => ({
      result,
      label: `case ${result.spec.name}, request ${i + 1}`,
      request,
    })),
  );
}

/** A request that carries no body (GET, HEAD) has no content type to state. */
function carriesBody(request: JournalEntry): boolean {
  return request.method !== 'GET' && request.method !== 'HEAD';
}

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
  {
    id: 'agent.auth.version-sent',
    clause: `${REQUEST_HEADERS}; target contract, agent (a client of the messages service)`,
    description: `Every request of the loop carries the version header (${VERSION_HEADERS.join(', or ')} as the real API names it).`,
    level: 'must',
    basis: 'spec',
    rule: `The spec (Endpoints: request headers): every request to the messages service carries a service-version header. An agent is a client of that service, so every request of its loop carries one (${VERSION_HEADERS.join(', or ')} as the real API names it), as messages-client.headers.version asks of every messages client.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const requests = await loopRequests(ctx);
      // The probe saw a request, so every run has one: this holds for a context made up in a test.
      if (requests.length === 0) throw new NotExercised('no request of the loop reached the mock');
      for (const { label, request } of requests) {
        // The journal reads the header as the mock's service does (service-version or anthropic-version).
        if (request.version !== null) continue;
        throw new CheckFailure(
          `${label}: the request carries no version header (the mock answered status ${request.status ?? 'none'})`,
          `service-version: ${SPEC_VERSION} (or anthropic-version: ${SPEC_VERSION})`,
          `no ${VERSION_HEADERS.join(' or ')} header; headers sent: ${show(Object.keys(request.headers).sort())}`,
        );
      }
    },
  },
  {
    id: 'agent.auth.version-value',
    clause: 'Versioning: service-version header value 2023-06-01',
    description: `The version header carries ${SPEC_VERSION}.`,
    level: 'should',
    basis: 'real-api',
    rule: "The spec's version value is 2023-06-01; the value selects an API version and the real API accepts newer ones (@anthropic-ai/sdk 1.x sends 2026-10-21). Another value is a warning, as messages-client.headers.version-value gives a messages client.",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      expectSpecVersionValue(await loopRequests(ctx), 'agent.auth.version-sent');
    },
  },
  {
    id: 'agent.auth.content-type',
    clause: `${REQUEST_HEADERS}; target contract, agent (a client of the messages service)`,
    description: 'Every request of the loop says content-type: application/json.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Endpoints: request headers): content-type: application/json. An agent is a client of the messages service, so every request of its loop says so (a charset or other parameter after it aside), as messages-client.headers.content-type asks of every messages client.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const requests = (await loopRequests(ctx)).filter(({ request }) => carriesBody(request));
      if (requests.length === 0) {
        throw new NotExercised(
          'no request of the loop carried a body (agent.loop.endpoint judges where they went)',
        );
      }
      for (const { label, request } of requests) {
        const type = request.headers['content-type'];
        if (type !== undefined && /^application\/json\s*(;.*)?$/i.test(type.trim())) continue;
        throw new CheckFailure(
          `${label}: the request must say content-type: application/json (the mock answered status ${request.status ?? 'none'})`,
          'content-type: application/json',
          type === undefined ? 'no content-type header' : `content-type: ${type}`,
        );
      }
    },
  },
];
