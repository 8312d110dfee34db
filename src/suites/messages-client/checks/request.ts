import { type Check, CheckFailure, show } from '../../../harness/check.js';
import type { JournalEntry } from '../../../mocks/messages/index.js';
import { firstDifference } from '../compare.js';
import { always, type CaseResult, helloMessage, type MessagesClientCtx } from '../context.js';
import { describeRequests, expectClientError, expectRequests } from '../expect.js';
import { describeRun } from '../output.js';
import { normalizedTurns, plainRequest, richRequest } from '../requests.js';
import { CASE_BUDGET_MS } from './common.js';

const SPEC_VERSION = '2023-06-01';

/** The requests of the shared buffered and streamed cases, labelled. */
async function sharedRequests(
  ctx: MessagesClientCtx,
): Promise<{ label: string; stream: boolean; request: JournalEntry }[]> {
  const cases: [string, boolean, CaseResult][] = [
    ['buffered request', false, await ctx.shared.richBuffered()],
    ['streaming request', true, await ctx.shared.richStreamed()],
  ];
  return cases.flatMap(([label, stream, result]) =>
    expectRequests(result, label).map((request, i) => ({
      label: i === 0 ? label : `${label} (attempt ${i + 1})`,
      stream,
      request,
    })),
  );
}

/** The body fields the spec lists, with `stream` absent read as false and string turns as text blocks. */
function specFields(body: unknown): unknown {
  const b = (body ?? {}) as Record<string, unknown>;
  return {
    model: b.model,
    max_tokens: b.max_tokens,
    messages: normalizedTurns(b.messages),
    tools: b.tools ?? null,
    stream: b.stream === true,
  };
}

export const requestChecks: Check<MessagesClientCtx>[] = [
  {
    id: 'messages-client.request.endpoint',
    clause: 'Endpoints: POST {base_url}/v1/messages',
    description: 'Every request is a POST to {base_url}/v1/messages.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, request } of await sharedRequests(ctx)) {
        const path = new URL(request.url, 'http://mock').pathname;
        if (request.method !== 'POST' || path !== '/v1/messages') {
          throw new CheckFailure(
            `${label}: sent to the wrong endpoint`,
            'POST /v1/messages',
            `${request.method} ${request.url}`,
          );
        }
      }
    },
  },
  {
    id: 'messages-client.request.body',
    clause:
      'Resources: Message request body; Endpoints: follow-up turn (TARGETS messages-client: stdin is the request body)',
    description:
      'The request carries the model, max_tokens, messages, tools and stream flag given on stdin, unchanged.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, stream, request } of await sharedRequests(ctx)) {
        const stdin = specFields(richRequest(stream));
        const sent = specFields(request.body);
        const difference = firstDifference(stdin, sent);
        if (difference !== undefined) {
          throw new CheckFailure(
            `${label}: the body sent differs from stdin at ${difference}`,
            show(stdin),
            show(request.body),
          );
        }
      }
    },
  },
  {
    id: 'messages-client.auth.key-sent',
    clause: 'Authentication: the key from the environment on every request',
    description:
      'Every request carries the key from the environment, in x-api-key or as Authorization: Bearer (which the real API also accepts).',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, request } of await sharedRequests(ctx)) {
        const bearer = request.headers.authorization;
        // The journal keeps no key; it says which headers carried the run's key (the mock's apiKey).
        if (request.configuredKeyIn.length > 0) continue;
        throw new CheckFailure(
          `${label}: the request must carry the key from WIRECHECK_API_KEY / ANTHROPIC_API_KEY`,
          `x-api-key: ${ctx.apiKey}`,
          `x-api-key: ${request.headers['x-api-key'] ?? '(none)'}; authorization: ${bearer ?? '(none)'}`,
        );
      }
    },
  },
  {
    id: 'messages-client.auth.x-api-key',
    clause: 'Authentication: header x-api-key carrying the key on every request; Endpoints: request headers',
    description:
      'The key travels in the x-api-key header the spec names (a warning only: @anthropic-ai/sdk 1.x sends Authorization: Bearer, which the real API accepts).',
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, request } of await sharedRequests(ctx)) {
        const sent = request.headers['x-api-key'];
        if (request.configuredKeyIn.includes('x-api-key')) continue;
        const note =
          request.auth === 'bearer'
            ? ' (it sent Authorization: Bearer instead, as @anthropic-ai/sdk 1.x does; the spec names x-api-key)'
            : '';
        throw new CheckFailure(
          `${label}: x-api-key should carry the key from WIRECHECK_API_KEY / ANTHROPIC_API_KEY${note}`,
          `x-api-key: ${ctx.apiKey}`,
          sent === undefined ? `no x-api-key header (auth: ${request.auth})` : `x-api-key: ${sent}`,
        );
      }
    },
  },
  {
    id: 'messages-client.auth.missing-key',
    clause: 'Authentication: the key is required; a client without it exits with an error before sending',
    description:
      'With both key variables unset the client sends nothing and fails with kind missing_api_key.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        scenario: always({ kind: 'message', message: helloMessage() }),
        body: plainRequest(false),
        withKey: false,
        signal: env.signal,
      });
      if (result.requests.length > 0) {
        throw new CheckFailure(
          `without a key the client still sent a request (${describeRun(result.run)})`,
          'no request',
          describeRequests(result.requests),
        );
      }
      expectClientError(result, ['missing_api_key'], 'no API key in the environment');
    },
  },
  {
    id: 'messages-client.headers.version',
    clause: 'Endpoints: request headers, a service-version header',
    description:
      'Every request carries the version header (service-version, or anthropic-version as the real API names it).',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, request } of await sharedRequests(ctx)) {
        if (request.version === null) {
          throw new CheckFailure(
            `${label}: no version header`,
            `service-version: ${SPEC_VERSION} (or anthropic-version: ${SPEC_VERSION})`,
            show(request.headers),
          );
        }
      }
    },
  },
  {
    id: 'messages-client.headers.version-value',
    clause: 'Versioning: service-version header value 2023-06-01',
    // should: the value selects an API version; @anthropic-ai/sdk 1.x deliberately sends 2026-10-21.
    description: `The version header carries ${SPEC_VERSION}.`,
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, request } of await sharedRequests(ctx)) {
        if (request.version !== null && request.version.value !== SPEC_VERSION) {
          throw new CheckFailure(
            `${label}: the version header names another version than the spec's`,
            `${request.version.header}: ${SPEC_VERSION}`,
            `${request.version.header}: ${request.version.value}`,
          );
        }
      }
    },
  },
  {
    id: 'messages-client.headers.content-type',
    clause: 'Endpoints: request headers, content-type: application/json',
    description: 'Every request says content-type: application/json.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      for (const { label, request } of await sharedRequests(ctx)) {
        const type = request.headers['content-type'];
        if (type === undefined || !/^application\/json\s*(;.*)?$/i.test(type.trim())) {
          throw new CheckFailure(
            `${label}: wrong content-type`,
            'application/json',
            type ?? 'no content-type header',
          );
        }
      }
    },
  },
];
