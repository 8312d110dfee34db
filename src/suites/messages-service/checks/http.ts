import { type Check, NotExercised } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import { sendBuffered } from '../http.js';
import { type BufferedReply, describeReply, type HeaderMap, headerOf } from '../replies.js';
import { bufferedContentTypeViolations, bufferedMessage, streamHeaderViolations } from '../reply-rules.js';
import { textRequest } from '../requests.js';
import { failOn, violation, within } from '../violations.js';
import { bufferedReplies, NETWORK_BUDGET_MS, streamedReplies } from './common.js';

/** The reply's request id: `request-id` (the real API) or `x-request-id`; header maps are lower-cased. */
function requestIdOf(headers: HeaderMap): string | undefined {
  return headerOf(headers, 'request-id') ?? headerOf(headers, 'x-request-id');
}

/**
 * A refusal (HTTP 4xx) that names `anthropic-version`: the real API's answer to a request
 * without it is 400 `anthropic-version: header is required`.
 */
function asksForRealApiHeader(reply: BufferedReply): boolean {
  return reply.status >= 400 && reply.status < 500 && /anthropic-version/i.test(reply.text);
}

export const httpChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.http.buffered-content-type',
    clause: 'Endpoints: POST /v1/messages',
    description: 'A buffered reply is an HTTP JSON body: content type application/json.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a request with `stream` absent or false is answered with an HTTP JSON body (the message). Every messages service.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const ok = (await bufferedReplies(ctx)).filter((r) => r.reply.status === 200);
      if (ok.length === 0)
        throw new NotExercised(
          'no buffered request got HTTP 200; see messages-service.buffered.message-shape',
        );
      failOn(
        ok.flatMap((r) => within(r.label, bufferedContentTypeViolations(r.reply))),
        'a buffered reply must be JSON',
      );
    },
  },
  {
    id: 'messages-service.http.stream-content-type',
    clause: 'Endpoints: POST /v1/messages',
    description: 'A `stream: true` request is answered with HTTP 200 and content type text/event-stream.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a `stream: true` request is answered with HTTP 200 and content type text/event-stream. Every messages service.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await streamedReplies(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, streamHeaderViolations(s.reply))),
        'a stream must be HTTP 200 text/event-stream',
      );
    },
  },
  {
    id: 'messages-service.http.request-id',
    clause: 'Endpoints: POST /v1/messages (not in the spec; the real API sends a request-id header)',
    description:
      'Every reply carries a request-id header (or x-request-id, names compared case-insensitively), as the real API does.',
    level: 'should',
    basis: 'real-api',
    rule: 'Not in the spec: the real API names every reply in a `request-id` header (header names are case-insensitive; `x-request-id`, the name many gateways and mocks use, is accepted as the same thing). A habit worth keeping for support and logs, so a warning.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const replies = [...(await bufferedReplies(ctx)), ...(await streamedReplies(ctx))];
      failOn(
        replies
          .filter((r) => requestIdOf(r.reply.headers) === undefined)
          .map((r) =>
            violation(
              r.label,
              'a request-id header (or x-request-id)',
              `none; headers received: ${Object.keys(r.reply.headers).join(', ') || '(none)'}`,
            ),
          ),
        'replies should name their request',
      );
    },
  },

  {
    id: 'messages-service.headers.service-version',
    clause: 'Endpoints: request headers (service-version: 2023-06-01); Versioning',
    description:
      "A request that names the version only in the spec's service-version header (no anthropic-version) is served.",
    level: 'must',
    basis: 'spec',
    rule: "The spec names the version header `service-version` (value 2023-06-01). Every messages service serves a request that carries it, even without the real API's `anthropic-version`. A service that refuses it naming `anthropic-version` (the real API, and a proxy in front of it: `anthropic-version: header is required`) uses the real API's name for the header, so the spec's name cannot be judged on it: the check is not exercised, saying so. Any other refusal fails.",
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx, env) {
      const reply = await sendBuffered(ctx.client, JSON.stringify(textRequest(ctx.model, false)), {
        versionHeaders: 'spec',
        signal: env.signal,
      });
      if (asksForRealApiHeader(reply)) {
        throw new NotExercised(
          `the service refused a request that carried only the spec's service-version header, asking for anthropic-version (${describeReply(reply)}): it uses the real API's name for the version header, so the spec's name cannot be judged on it`,
        );
      }
      failOn(
        within('reply to a request with service-version only', bufferedMessage(reply).violations),
        "a request with the spec's version header must be served",
      );
    },
  },
];
