import { type Check, HarnessBug, NotExercised } from '../../../harness/check.js';
import { describeDifferences } from '../../../protocol/compare.js';
import type { AgentCaseResult, AgentCtx } from '../context.js';
import { bodyCut, describeRequest, specDifferences, turnsOf } from '../conversation.js';
import { CHECK_BUDGET_MS, caseFailure, expectNotCutShort, runContext } from '../expect.js';
import { RETRIED_ERRORS, RETRY_AFTER_MS, type ServiceErrorStep, statusOfRetried } from '../script.js';

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
  return `HTTP ${statusOfRetried(error)} ${RETRIED_ERRORS[error].errorType}`;
}

/** The error the case's script answers request `index` with, if any. */
function errorAt(result: AgentCaseResult, index: number): RetriedError | undefined {
  const step = index < 0 ? undefined : result.spec.step(index);
  return step !== undefined && 'serviceError' in step ? step.serviceError : undefined;
}

/**
 * The request the case's script answers `error` (counted from 0). A script without it is a
 * bug of the suite that no agent can cause.
 */
function indexOfError(result: AgentCaseResult, error: RetriedError): number {
  for (let i = 0; i < result.spec.steps; i++) if (errorAt(result, i) === error) return i;
  throw new HarnessBug(
    `${CHECK_OF[error]}: the script of case ${result.spec.name} answers no request ${answerOf(error)} in its ${result.spec.steps} steps, so there is no retry to judge`,
  );
}

/** Why the agent never sent the request the script answers with an error. */
function whyNotSent(result: AgentCaseResult): string {
  const last = result.requests.length - 1;
  const unretried = errorAt(result, last);
  return unretried === undefined || result.requests[last]?.status !== statusOfRetried(unretried)
    ? `the agent sent ${result.requests.length} request(s)`
    : `the agent did not send request ${last + 1} again after ${answerOf(unretried)}, which ${CHECK_OF[unretried]} judges`;
}

/**
 * The case's script answers `error` to the first try of a request (the retriedErrors case
 * answers 529 to the first request, and 429 to the one that follows the tool call): the request
 * after it must be that request again, the same conversation. Not exercised when the agent
 * never got that answer (it stopped before, for a reason another check judges).
 */
function expectSentAgain(result: AgentCaseResult, error: RetriedError): void {
  const index = indexOfError(result, error);
  expectNotCutShort(result, `the ${answerOf(error)} answer could be served`, index + 1);
  const answered = result.requests[index];
  const status = statusOfRetried(error);
  if (answered?.status !== status) {
    const seen =
      answered === undefined
        ? whyNotSent(result)
        : `request ${index + 1} was answered ${answered.status ?? 'nothing'}`;
    throw new NotExercised(`the mock answered no request ${status}: ${seen} (${runContext(result)})`);
  }
  const retry = result.requests[index + 1];
  if (retry === undefined) {
    throw caseFailure(
      result,
      `the agent did not send request ${index + 1} again after ${answerOf(error)} (${runContext(result)})`,
      'the same request sent again, after retry-after-ms',
      'no further request',
    );
  }
  for (const [entry, n] of [
    [answered, index + 1],
    [retry, index + 2],
  ] as const) {
    const cut = bodyCut(entry);
    if (cut !== undefined) {
      throw new NotExercised(
        `request ${n} cannot be compared with the other try: ${cut} (${runContext(result)})`,
      );
    }
  }
  const first = turnsOf(answered);
  const again = turnsOf(retry);
  if (first === undefined || again === undefined) {
    // A retry the mock refused (unread without a key, or not a body of turns) has nothing to compare.
    expectNotCutShort(result, `request ${index + 2} could be compared with request ${index + 1}`, index + 2);
    throw new NotExercised(
      `request ${first === undefined ? index + 1 : index + 2} carries no turns to compare (${runContext(result)})`,
    );
  }
  const found = specDifferences(first, again);
  if (found.length > 0) {
    throw caseFailure(
      result,
      `the request after ${answerOf(error)} is not the same conversation again; ${found.length} difference(s): ${describeDifferences(found)}`,
      `the turns of request ${index + 1}, unchanged`,
      describeRequest(retry, index + 1),
    );
  }
}

export const retryChecks: Check<AgentCtx>[] = [
  {
    id: CHECK_OF.overloaded,
    clause: `${ERRORS_CLAUSE}; the real API answers HTTP 529 overloaded_error with retry-after-ms when it is overloaded)`,
    description: `The first request answered HTTP 529 overloaded_error (retry-after-ms ${RETRY_AFTER_MS}) is sent again with the same conversation, as the real API's SDKs do.`,
    level: 'should',
    basis: 'real-api',
    rule: `The real Messages API answers 529 overloaded_error when it is overloaded. ${SDK_HABIT}`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      expectSentAgain(await ctx.result('retriedErrors'), 'overloaded');
    },
  },
  {
    id: CHECK_OF.rateLimited,
    clause: `${ERRORS_CLAUSE}; the real API answers HTTP 429 rate_limit_error with retry-after when a rate limit is reached)`,
    description: `A request answered HTTP 429 rate_limit_error (retry-after-ms ${RETRY_AFTER_MS}, retry-after 1) is sent again with the same conversation, as the real API's SDKs do. It is the request that carries the tool_result, so the retry repeats a conversation of three turns; it is its first try, so an agent that retries once is served.`,
    level: 'should',
    basis: 'real-api',
    rule: `The real Messages API answers 429 rate_limit_error when the account's rate limit is reached, with the seconds to wait in retry-after. ${SDK_HABIT}`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      expectSentAgain(await ctx.result('retriedErrors'), 'rateLimited');
    },
  },
];
