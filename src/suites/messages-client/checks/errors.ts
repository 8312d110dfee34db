import { type Check, CheckFailure, CheckSkipped } from '../../../harness/check.js';
import { errorTypeForStatus } from '../../../protocol/messages/index.js';
import {
  always,
  type MessagesClientCtx,
  RATE_LIMIT_RETRY_AFTER_S,
  RATE_LIMIT_WAIT_MS,
  RETRYING_CASE_MS,
} from '../context.js';
import { expectClientError, expectRequests } from '../expect.js';
import { plainRequest } from '../requests.js';
import { RETRYING_CHECK_MS } from './common.js';

const DISTINCT_FAILURES =
  'Errors: client libraries raise distinct failures for rate limiting, connection problems and non-success HTTP statuses';

/** No rule bounds a client's retries: how long the case waits for them, and what it says after. */
const RETRY_NOTE = `Retries are allowed: the case waits ${RETRYING_CASE_MS / 1000} s for them; a client still retrying then is not judged.`;

const STATUS_RULE = `The spec (Errors): client libraries raise distinct failures for non-success HTTP statuses; the target contract reports them as kind status with the status. Every messages client, streamed requests included (the status arrives before any frame). ${RETRY_NOTE}`;

/** A non-success status other than 429: kind `status` with that status. */
function statusCheck(
  status: number,
  name: string,
  streamed: boolean,
  headers?: Record<string, string>,
): Check<MessagesClientCtx> {
  const label = `HTTP ${status} ${errorTypeForStatus(status)}${headers ? ' with retry-after' : ''}${streamed ? ' to a streaming request' : ''}`;
  return {
    id: `messages-client.errors.status-${status}${headers ? '-retry-after' : ''}${streamed ? '-streamed' : ''}`,
    // A client may retry 5xx after a wait (retry-after, backoff): that wait overlaps other
    // checks. A 4xx is not retried: the case is as short as any other and takes a job slot.
    ...(status >= 500 && { schedule: 'waits' as const }),
    ...(headers && { prescribedWaitMs: RATE_LIMIT_WAIT_MS }),
    clause: `${DISTINCT_FAILURES} (target contract (README), messages-client: kind status)`,
    description: `${label} (${name}) makes the client fail with kind status and status ${status}${headers ? ' (retries allowed, after the wait)' : ''}.`,
    level: 'must',
    basis: 'spec',
    rule: STATUS_RULE,
    timeoutMs: RETRYING_CHECK_MS,
    async run(ctx, env) {
      // The same answer to every attempt, so retries (allowed) cannot change the outcome.
      const result = await ctx.runCase({
        scenario: always({
          kind: 'error',
          status,
          errorType: errorTypeForStatus(status),
          ...(headers && { headers }),
        }),
        body: plainRequest(streamed),
        timeoutMs: RETRYING_CASE_MS,
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
    prescribedWaitMs: RATE_LIMIT_WAIT_MS,
    // The client waits between its retries (retry-after, backoff): the wait overlaps other checks.
    schedule: 'waits',
    clause: `${DISTINCT_FAILURES}; the rate-limit case exists for the messages service (target contract (README), messages-client: kind rate_limit)`,
    description: 'HTTP 429 with retry-after makes the client fail with kind rate_limit and status 429.',
    level: 'must',
    basis: 'spec',
    rule: `The spec (Errors): client libraries raise distinct failures for rate limiting, connection problems and non-success statuses, and the rate-limit case exists for the messages service. Every messages client reports a 429 as kind rate_limit with status 429. ${RETRY_NOTE}`,
    timeoutMs: RETRYING_CHECK_MS,
    async run(ctx) {
      const result = await ctx.shared.rateLimited();
      expectRequests(result, 'HTTP 429');
      expectClientError(result, ['rate_limit'], 'HTTP 429 rate_limit_error', 429);
    },
  },
  {
    id: 'messages-client.errors.retry-after',
    prescribedWaitMs: RATE_LIMIT_WAIT_MS,
    // The client waits between its retries (retry-after, backoff): the wait overlaps other checks.
    schedule: 'waits',
    clause: 'Errors (not in the spec; the real API sends retry-after with 429 and its SDKs wait that long)',
    description: `A client that retries a 429 waits at least the retry-after time (${RATE_LIMIT_RETRY_AFTER_S} s) first.`,
    level: 'should',
    basis: 'real-api',
    rule: 'Not in the spec: the real API sends retry-after with a 429 and its SDKs wait that long before a retry. A client that retries sooner gets a warning; one that does not retry is not judged.',
    timeoutMs: RETRYING_CHECK_MS,
    async run(ctx) {
      const requests = (await ctx.shared.rateLimited()).requests;
      if (requests.length < 2) throw new CheckSkipped('the client did not retry the 429');
      // 50 ms of slack for timer granularity between the two processes.
      const least = RATE_LIMIT_RETRY_AFTER_S * 1000 - 50;
      for (let i = 1; i < requests.length; i++) {
        // From the 429's request, not its response's end: the client cannot have been answered
        // before it asked, while the end is stamped when the mock's event loop gets to it, late
        // under load (an SDK waiting 1000 ms measured 936).
        const waited = requests[i]!.receivedAtMono - requests[i - 1]!.receivedAtMono;
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
  {
    id: 'messages-client.errors.rate-limit-streamed',
    prescribedWaitMs: RATE_LIMIT_WAIT_MS,
    // The client waits between its retries (retry-after, backoff): the wait overlaps other checks.
    schedule: 'waits',
    clause: `${DISTINCT_FAILURES} (target contract (README), messages-client: kind rate_limit)`,
    description: 'HTTP 429 to a streaming request makes the client fail with kind rate_limit and status 429.',
    level: 'must',
    basis: 'spec',
    rule: `The spec (Errors): rate limiting is a distinct failure, and a streamed request meets it before any frame (the 429 is the HTTP status). Every messages client reports kind rate_limit with status 429 for a streamed request too. ${RETRY_NOTE}`,
    timeoutMs: RETRYING_CHECK_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        scenario: always({
          kind: 'error',
          status: 429,
          errorType: 'rate_limit_error',
          headers: { 'retry-after': String(RATE_LIMIT_RETRY_AFTER_S) },
        }),
        body: plainRequest(true),
        timeoutMs: RETRYING_CASE_MS,
        signal: env.signal,
      });
      expectRequests(result, 'HTTP 429 to a streaming request');
      expectClientError(result, ['rate_limit'], 'HTTP 429 rate_limit_error to a streaming request', 429);
    },
  },
  statusCheck(529, 'overloaded', false),
  statusCheck(529, 'overloaded', true),
  statusCheck(529, 'overloaded', false, { 'retry-after': String(RATE_LIMIT_RETRY_AFTER_S) }),
  statusCheck(500, 'server error', false),
  statusCheck(401, 'authentication refused', false),
  statusCheck(403, 'permission refused', false),
  statusCheck(404, 'not found', false),
  statusCheck(413, 'request too large', false),
  statusCheck(400, 'invalid request', false),
  {
    id: 'messages-client.errors.connection-refused',
    // The client waits between its retries (retry-after, backoff): the wait overlaps other checks.
    schedule: 'waits',
    clause: `${DISTINCT_FAILURES} (target contract (README), messages-client: kind connection, no status)`,
    description:
      'A base URL where the connection is refused makes the client fail with kind connection and no status.',
    level: 'must',
    basis: 'spec',
    rule: `The spec (Errors): connection problems are a distinct failure. Every messages client reports a refused connection as kind connection, with no HTTP status. ${RETRY_NOTE} A refused attempt reaches no mock, so a client that neither reports nor exits in that time is not judged either.`,
    timeoutMs: RETRYING_CHECK_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        scenario: always({
          kind: 'error',
          status: 500,
          message: 'this request should not have reached the mock',
        }),
        body: plainRequest(false),
        baseUrl: await ctx.refusedBaseUrl(),
        timeoutMs: RETRYING_CASE_MS,
        signal: env.signal,
      });
      expectClientError(result, ['connection'], 'connection refused', null, true);
    },
  },
];
