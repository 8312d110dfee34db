import { type Check, type CheckEnv, CheckFailure, NotExercised, show } from '../../../harness/check.js';
import { atMessagesEndpoint, type JournalEntry, MESSAGES_PATH } from '../../../mocks/messages/index.js';
import { describeDifferences, differences } from '../../../protocol/compare.js';
import { normalizeMessageRequest } from '../../../protocol/messages/index.js';
import { bodyNotKept } from '../../journal-bodies.js';
import { expectSpecVersionValue, SPEC_VERSION } from '../../version-value.js';
import { always, type CaseResult, helloMessage, type MessagesClientCtx } from '../context.js';
import {
  describeRequests,
  expectClientError,
  expectRequests,
  judgeOf,
  refusalIn,
  refusalOf,
} from '../expect.js';
import { describeRun } from '../output.js';
import { plainRequest, richRequest } from '../requests.js';
import { CASE_BUDGET_MS } from './common.js';

/** The check that fails a client for sending no request for a shared case. */
const OWNER = 'messages-client.request.body';

/**
 * The requests of the shared buffered and streamed cases, labelled. A case that sent nothing
 * fails only the owner (`owns`); the other checks judge the requests there are, and are not
 * exercised when there are none, so one fault is not one failure per header.
 */
async function sharedRequests(
  ctx: MessagesClientCtx,
  env: CheckEnv,
  owns = false,
): Promise<{ label: string; stream: boolean; request: JournalEntry }[]> {
  const all: [string, boolean, CaseResult][] = [
    ['buffered request', false, await ctx.shared.richBuffered(env)],
    ['streaming request', true, await ctx.shared.richStreamed(env)],
  ];
  const cases = owns ? all : all.filter(([, , result]) => result.requests.length > 0);
  if (cases.length === 0) {
    throw new NotExercised(
      `no request reached the mock for either shared case (${all.map(([label, , result]) => `${label}: ${describeRun(result.run)}`).join('; ')}); see ${OWNER}`,
    );
  }
  return cases.flatMap(([label, stream, result]) =>
    expectRequests(result, label).map((request, i) => ({
      label: i === 0 ? label : `${label} (attempt ${i + 1})`,
      stream,
      request,
    })),
  );
}

/**
 * The requests whose body the mock read: one it refused unread (no key, another path) is not
 * there to compare. NotExercised when there is none, naming what refused them and who judges that.
 */
function withBodyRead<T extends { request: JournalEntry }>(requests: readonly T[]): T[] {
  const read = requests.filter(({ request }) => refusalOf(request)?.bodyRead !== false);
  if (read.length > 0) return read;
  const refusal = refusalIn(requests.map(({ request }) => request));
  throw new NotExercised(
    `the mock read no request body: it refused every request unread${refusal === undefined ? '' : ` (status ${refusal.status ?? 'none'}: ${refusal.why}; ${judgeOf(refusal)})`}`,
  );
}

/**
 * The journal holds the request's whole body (bodyNotKept): a client may rightly send more than
 * it keeps (a long system prompt at the top level, which no check judges), and a body it did not
 * keep whole is not compared with stdin.
 */
function wholeBody({ request }: { request: JournalEntry }): boolean {
  return bodyNotKept(request) === undefined;
}

/** Why no body of `requests` was compared: the journal cut every one (wholeBody). */
function noWholeBody(requests: readonly { label: string; request: JournalEntry }[]): NotExercised {
  const cut = requests.map(({ label, request }) => `${label}: ${bodyNotKept(request)}`);
  return new NotExercised(
    `the mock's journal did not keep a whole request body (${cut.join('; ')}), nothing to compare with stdin`,
  );
}

/** The body fields the spec lists, in one form: string turns as text blocks, defaults written out. */
function specFields(body: unknown): unknown {
  const b = (normalizeMessageRequest(body ?? {}) ?? {}) as Record<string, unknown>;
  return { model: b.model, max_tokens: b.max_tokens, messages: b.messages, tools: b.tools, stream: b.stream };
}

/** Keys added inside what stdin gave (turns, blocks, tool definitions); the top level is free. */
function addedInside(objectPath: string): boolean {
  return objectPath !== '$';
}

export const requestChecks: Check<MessagesClientCtx>[] = [
  {
    id: 'messages-client.request.endpoint',
    clause: 'Endpoints: POST {base_url}/v1/messages',
    description: 'Every request is a POST to {base_url}/v1/messages.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Endpoints): the messages operation is POST {base_url}/v1/messages. Every messages client sends its requests there.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const { label, request } of await sharedRequests(ctx, env)) {
        if (!atMessagesEndpoint(request)) {
          throw new CheckFailure(
            `${label}: sent to the wrong endpoint (the mock answered status ${request.status ?? 'none'})`,
            `POST ${MESSAGES_PATH}`,
            `${request.method} ${request.url}`,
          );
        }
      }
    },
  },
  {
    id: 'messages-client.request.body',
    clause:
      'Resources: Message request body; Endpoints: follow-up turn (target contract (README), messages-client: stdin is the request body)',
    description:
      'The request carries the model, max_tokens, messages, tools and stream flag given on stdin, with their values; every difference is reported.',
    level: 'must',
    basis: 'contract',
    rule: "The target contract: stdin is the request body (model, max_tokens, messages, tools, stream), and the spec's field table says what each holds. The client sends every field given, with its value; a documented default written out or left out (is_error false, stream false, a string turn as one text block) is the same request. Fields it adds are judged by request.body-additions. A client that sends no request for a valid stdin fails here, and the other request rules judge the requests it did send. So does a client whose body the real API refuses (stdin is one it serves): the checks of the cases that met that refusal are then not exercised. A body sent with a Content-Encoding the mock does not decode (it decodes gzip, deflate and br) is not judged at all, here or by the checks of its cases: whether the real API takes it is not verified.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const read = withBodyRead(await sharedRequests(ctx, env, true));
      for (const { label, stream, request } of read) {
        const stdin = specFields(richRequest(stream));
        const found = wholeBody({ request })
          ? differences(stdin, specFields(request.body), { extra: 'tolerate' })
          : [];
        if (found.length > 0) {
          throw new CheckFailure(
            `${label}: the body sent differs from stdin: ${describeDifferences(found)}`,
            show(stdin),
            show(request.body),
          );
        }
        // The mock judged the body whole before its journal cut it: its refusal stands for a cut body too.
        if (request.bodyError !== undefined) {
          // stdin was a body the real API serves; what the client made of it is not.
          throw new CheckFailure(
            `${label}: the mock refused the body as the real API would (status ${request.status ?? 'none'}): ${request.bodyError}`,
            'a body the real API accepts: stdin, with what the client adds',
            show(request.body),
          );
        }
      }
      if (!read.some(wholeBody)) throw noWholeBody(read);
    },
  },
  {
    id: 'messages-client.request.body-additions',
    clause:
      'Resources: Message request body (target contract (README), messages-client: stdin is the request body)',
    description:
      'The turns, blocks and tool definitions given on stdin are sent without fields added to them (added top-level parameters are not judged).',
    level: 'should',
    basis: 'real-api',
    rule: 'The target contract makes stdin the request body. A field the client adds inside a turn, block or tool definition (cache_control, eager_input_streaming) is one the real API accepts, so the request still works, but it changes what was asked (billing, how tool input streams): a warning that names every added field. A field added as null is one left unset, not an addition.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const read = withBodyRead(await sharedRequests(ctx, env));
      if (!read.some(wholeBody)) throw noWholeBody(read);
      for (const { label, stream, request } of read.filter(wholeBody)) {
        const stdin = specFields(richRequest(stream));
        const sent = specFields(request.body);
        // A field written as null is one left unset (the API's schema makes the optional fields
        // it accepts null for nullable): nothing was added to what was asked. A null the API
        // refuses is request.body's to fail, as the mock refuses the body.
        const found = differences(stdin, sent, { extra: addedInside }).filter(
          (d) => d.kind === 'extra' && d.actual !== null,
        );
        if (found.length > 0) {
          throw new CheckFailure(
            `${label}: the client added fields to what stdin gave: ${describeDifferences(found)}`,
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
    basis: 'spec',
    rule: 'The spec (Authentication): the key, read from the environment, goes with every request. Every messages client sends it, in x-api-key or as Authorization: Bearer (which the real API accepts as well).',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const { label, request } of await sharedRequests(ctx, env)) {
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
    basis: 'real-api',
    rule: 'The spec names the x-api-key header; the real API also accepts Authorization: Bearer, which @anthropic-ai/sdk 1.x sends. A client using Bearer works against the real API, so x-api-key itself is only a warning.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const { label, request } of await sharedRequests(ctx, env)) {
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
    basis: 'spec',
    rule: 'The spec (Authentication): the key is required; a client without it exits with an error before sending anything. Every messages client (the contract: kind missing_api_key).',
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
    basis: 'spec',
    rule: 'The spec (Endpoints: request headers): every request carries a service-version header. Every messages client sends one (service-version, or anthropic-version as the real API names it).',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const { label, request } of await sharedRequests(ctx, env)) {
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
    basis: 'real-api',
    rule: "The spec's version value is 2023-06-01; the value selects an API version and the real API accepts newer ones (@anthropic-ai/sdk 1.x sends 2026-10-21). Another value is a warning.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectSpecVersionValue(await sharedRequests(ctx, env), 'messages-client.headers.version');
    },
  },
  {
    id: 'messages-client.headers.content-type',
    clause: 'Endpoints: request headers, content-type: application/json',
    description: 'Every request says content-type: application/json.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Endpoints: request headers): content-type: application/json. Every messages client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const { label, request } of await sharedRequests(ctx, env)) {
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
