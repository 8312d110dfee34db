import { type Check, NotExercised } from '../../../harness/check.js';
import { describeDifferences } from '../../../protocol/compare.js';
import type { AgentCaseResult, AgentCtx } from '../context.js';
import { describeRequest, specDifferences, turnsOf } from '../conversation.js';
import { CHECK_BUDGET_MS, caseFailure, expectNotCutShort, runContext } from '../expect.js';
import { RETRIED_ERRORS, RETRY_AFTER_MS, type ServiceErrorStep } from '../script.js';

const ERRORS_CLAUSE =
  'Errors ("Error response body shape and status codes of the messages service: not shown"';
const SDK_HABIT =
  'The spec leaves status codes to the real API, and its SDKs retry 429, 529 and other 5xx (twice by default, after retry-after-ms when given): an agent that gives up at once ends a loop the service would serve a moment later. A habit of the real API, so a warning.';

type RetriedError = ServiceErrorStep['serviceError'];

const CHECK_OF: Readonly<Record<RetriedError, string>> = {
  overloaded: 'agent.loop.retries-overloaded',
  rateLimited: 'agent.loop.retries-rate-limited',
};

/** "HTTP 529 overloaded_error", as the case's step answered it. */
function answerOf(error: RetriedError): string {
  const { status, errorType } = RETRIED_ERRORS[error];
  return `HTTP ${status} ${errorType}`;
}

/** The error the case's script answers request `index` with, if any. */
function errorAt(result: AgentCaseResult, index: number): RetriedError | undefined {
  const step = index < 0 ? undefined : result.spec.step(index);
  return step !== undefined && 'serviceError' in step ? step.serviceError : undefined;
}

/**
 * Request `index` of the case was answered `error` (the retriedErrors case answers 529 to the
 * first request and 429 to the next): the request after it must be request 1 again, the same
 * conversation. Not exercised when the agent never got that answer (it did not retry the one
 * before, which the check of that error judges).
 */
function expectSentAgain(result: AgentCaseResult, index: number, error: RetriedError): void {
  expectNotCutShort(result, `the ${answerOf(error)} answer could be served`, index + 1);
  const answered = result.requests[index];
  const status = RETRIED_ERRORS[error].status;
  const before = errorAt(result, index - 1);
  if (answered?.status !== status) {
    const seen =
      answered !== undefined
        ? `request ${index + 1} was answered ${answered.status ?? 'nothing'}`
        : before === undefined
          ? `the agent sent ${index} request(s)`
          : `the agent did not send request 1 again after ${answerOf(before)}, which ${CHECK_OF[before]} judges`;
    throw new NotExercised(`the mock answered no request ${status}: ${seen} (${runContext(result)})`);
  }
  const earlier =
    before === undefined ? '' : ` (it had sent it again once already, after ${answerOf(before)})`;
  const retry = result.requests[index + 1];
  if (retry === undefined) {
    throw caseFailure(
      result,
      `the agent did not send request 1 again after ${answerOf(error)}${earlier} (${runContext(result)})`,
      'the same request sent again, after retry-after-ms',
      'no further request',
    );
  }
  const first = turnsOf(result.requests[0]!);
  const again = turnsOf(retry);
  const found = first === undefined || again === undefined ? [] : specDifferences(first, again);
  if (found.length > 0) {
    throw caseFailure(
      result,
      `the request after ${answerOf(error)} is not the same conversation again; ${found.length} difference(s): ${describeDifferences(found)}`,
      'the turns of request 1, unchanged',
      describeRequest(retry, index + 1),
    );
  }
}

export const retryChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.loop.retries-overloaded',
    clause: `${ERRORS_CLAUSE}; the real API answers HTTP 529 overloaded_error with retry-after-ms when it is overloaded)`,
    description: `A request answered HTTP 529 overloaded_error (retry-after-ms ${RETRY_AFTER_MS}) is sent again with the same conversation, as the real API's SDKs do.`,
    level: 'should',
    basis: 'real-api',
    rule: `The real Messages API answers 529 overloaded_error when it is overloaded. ${SDK_HABIT}`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      expectSentAgain(await ctx.result('retriedErrors'), 0, 'overloaded');
    },
  },
  {
    id: 'agent.loop.retries-rate-limited',
    clause: `${ERRORS_CLAUSE}; the real API answers HTTP 429 rate_limit_error with retry-after when a rate limit is reached)`,
    description: `A request answered HTTP 429 rate_limit_error (retry-after-ms ${RETRY_AFTER_MS}, retry-after 1) is sent again with the same conversation, as the real API's SDKs do; it is the second try of a request answered 529 first, so an agent with the SDKs' default of two retries is served on its third.`,
    level: 'should',
    basis: 'real-api',
    rule: `The real Messages API answers 429 rate_limit_error when the account's rate limit is reached, with the seconds to wait in retry-after. ${SDK_HABIT}`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      expectSentAgain(await ctx.result('retriedErrors'), 1, 'rateLimited');
    },
  },
];
