import { type Check, CheckFailure, CheckSkipped } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import { sendBuffered } from '../http.js';
import { type BufferedReply, describeReply, type StreamedReply } from '../replies.js';
import { errorTypeOf } from '../reply-rules.js';
import { textRequest } from '../requests.js';
import { NETWORK_BUDGET_MS } from './common.js';

function isClientError(status: number): boolean {
  return status >= 400 && status < 500;
}

/** Keys that are not the service's: one shaped like a real key, one that is no key at all. */
const WRONG_KEYS: ReadonlyArray<[string, string]> = [
  ['a wrong key', 'sk-ant-api03-wirecheck-wrong-key-0000000000000000000000000000'],
  ['a garbage key', '%% not a key %%'],
];

function describeStream(reply: StreamedReply): string {
  const frames =
    reply.frames.length === 0
      ? ''
      : `, ${reply.frames.length} frames (first: event ${reply.frames[0]?.event})`;
  return `HTTP ${reply.status} (${reply.headers['content-type'] ?? 'no content-type'})${frames}`;
}

export const authChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.auth.missing-key-rejected',
    clause: 'Authentication',
    description: 'A request without x-api-key is refused with a client error (4xx).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Authentication): the x-api-key header carrying the key is required on every request. Every messages service refuses a request without it (a client error, 4xx).',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.missingKey();
      if (isClientError(reply.status)) return;
      throw new CheckFailure(
        reply.status < 300
          ? 'a request without x-api-key was served: the key is required on every request'
          : 'a request without x-api-key was not refused as a client error',
        '4xx (the real API: 401 authentication_error)',
        describeReply(reply),
      );
    },
  },
  {
    id: 'messages-service.auth.stream-missing-key-rejected',
    clause: 'Authentication; Endpoints (stream: true)',
    description: 'A stream: true request without x-api-key is refused with a 4xx before any event is sent.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Authentication): the key is required on every request, streamed ones included. Every messages service refuses a `stream: true` request without it with a client error, and sends no event of a stream first.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.missingKeyStreamed();
      if (isClientError(reply.status) && reply.frames.length === 0) return;
      throw new CheckFailure(
        reply.frames.length > 0
          ? 'a stream request without x-api-key got stream events'
          : 'a stream request without x-api-key was not refused as a client error',
        '4xx and no event (the real API: 401 authentication_error, a JSON body)',
        describeStream(reply),
      );
    },
  },
  {
    id: 'messages-service.auth.wrong-key-rejected',
    clause: 'Authentication (header x-api-key carrying <API_KEY>)',
    description:
      'A request whose x-api-key is not a valid key (a wrong key, a garbage value) is refused with a 4xx.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Authentication): every request carries the API key in x-api-key; a service authenticates with it. Every messages service refuses a request whose key is not one it issued, not only a request without a key.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx, env) {
      const served: string[] = [];
      for (const [label, key] of WRONG_KEYS) {
        const reply: BufferedReply = await sendBuffered(
          ctx.client,
          JSON.stringify(textRequest(ctx.model, false)),
          {
            apiKey: key,
            signal: env.signal,
          },
        );
        if (!isClientError(reply.status))
          served.push(`${label} (${JSON.stringify(key)}): ${describeReply(reply)}`);
      }
      if (served.length > 0) {
        throw new CheckFailure(
          `a request with a key that is not the service's was not refused: ${served.join('; ')}`,
          '4xx (the real API: 401 authentication_error)',
          served.join('; '),
        );
      }
    },
  },
  {
    id: 'messages-service.auth.missing-key-401',
    clause: 'Authentication (not in the spec; the real API answers 401 authentication_error)',
    description: 'A request without x-api-key gets 401, and an error body of type authentication_error.',
    level: 'should',
    basis: 'real-api',
    rule: 'Not in the spec (statuses are "not shown"): the real API answers a missing key with 401 and error type authentication_error. A warning.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.missingKey();
      if (!isClientError(reply.status)) {
        throw new CheckSkipped(
          'the request was not refused at all; see messages-service.auth.missing-key-rejected',
        );
      }
      const type = errorTypeOf(reply);
      if (reply.status !== 401 || type !== 'authentication_error') {
        throw new CheckFailure(
          'a missing key should get 401 authentication_error, as on the real API',
          '401 with error type authentication_error',
          describeReply(reply),
        );
      }
    },
  },
];
