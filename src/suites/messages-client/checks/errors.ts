import { type Check, CheckFailure, CheckSkipped } from '../../../harness/check.js';
import { errorTypeForStatus } from '../../../protocol/messages/index.js';
import { always, type MessagesClientCtx, RATE_LIMIT_RETRY_AFTER_S } from '../context.js';
import { expectClientError, expectRequests } from '../expect.js';
import { plainRequest } from '../requests.js';
import { CASE_BUDGET_MS } from './common.js';

const DISTINCT_FAILURES =
  'Errors: client libraries raise distinct failures for rate limiting, connection problems and non-success HTTP statuses';

/** A non-success status other than 429: kind `status` with that status. */
function statusCheck(status: number, name: string, streamed: boolean): Check<MessagesClientCtx> {
  const label = `HTTP ${status} ${errorTypeForStatus(status)}${streamed ? ' to a streaming request' : ''}`;
  return {
    id: `messages-client.errors.status-${status}${streamed ? '-streamed' : ''}`,
    clause: `${DISTINCT_FAILURES} (TARGETS messages-client: kind status)`,
    description: `${label} (${name}) makes the client fail with kind status and status ${status}.`,
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      // The same answer to every attempt, so retries (allowed) cannot change the outcome.
      const result = await ctx.runCase({
        scenario: always({ kind: 'error', status, errorType: errorTypeForStatus(status) }),
        body: plainRequest(streamed),
        signal: env.signal,
      });
      expectRequests(result, label);
      expectClientError(result, ['status'], label, status);
    },
  };
}

export const errorChecks: Check<MessagesClientCtx>[] = [
  {
    id: 'messages-client.errors.rate-limit',
    clause: `${DISTINCT_FAILURES}; the rate-limit case exists for the messages service (TARGETS messages-client: kind rate_limit)`,
    description: 'HTTP 429 with retry-after makes the client fail with kind rate_limit and status 429.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.rateLimited();
      expectRequests(result, 'HTTP 429');
      expectClientError(result, ['rate_limit'], 'HTTP 429 rate_limit_error', 429);
    },
  },
  {
    id: 'messages-client.errors.retry-after',
    clause: 'Errors (not in the spec; the real API sends retry-after with 429 and its SDKs wait that long)',
    description: `A client that retries a 429 waits at least the retry-after time (${RATE_LIMIT_RETRY_AFTER_S} s) first.`,
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const requests = (await ctx.shared.rateLimited()).requests;
      if (requests.length < 2) throw new CheckSkipped('the client did not retry the 429');
      // 50 ms of slack for timer granularity between the two processes.
      const least = RATE_LIMIT_RETRY_AFTER_S * 1000 - 50;
      for (let i = 1; i < requests.length; i++) {
        const waited =
          requests[i]!.receivedAtMono - (requests[i - 1]!.endedAtMono ?? requests[i - 1]!.receivedAtMono);
        if (waited < least) {
          throw new CheckFailure(
            `retry ${i} came ${Math.round(waited)} ms after the 429, before its retry-after of ${RATE_LIMIT_RETRY_AFTER_S} s`,
            `>= ${RATE_LIMIT_RETRY_AFTER_S * 1000} ms between attempts`,
            `${Math.round(waited)} ms`,
          );
        }
      }
    },
  },
  statusCheck(529, 'overloaded', false),
  statusCheck(529, 'overloaded', true),
  statusCheck(500, 'server error', false),
  statusCheck(401, 'authentication refused', false),
  statusCheck(400, 'invalid request', false),
  {
    id: 'messages-client.errors.connection-refused',
    clause: `${DISTINCT_FAILURES} (TARGETS messages-client: kind connection, no status)`,
    description:
      'A base URL where the connection is refused makes the client fail with kind connection and no status.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        scenario: always({
          kind: 'error',
          status: 500,
          message: 'this request should not have reached the mock',
        }),
        body: plainRequest(false),
        baseUrl: await ctx.refusedBaseUrl(),
        signal: env.signal,
      });
      expectClientError(result, ['connection'], 'connection refused', null);
    },
  },
];
