import { type Check, type CheckEnv, CheckFailure } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import { invalidRequestBody, validRequestBody } from '../arbitraries.js';
import type { MessagesServiceCtx } from '../context.js';
import { sendBuffered, sendStreamed } from '../http.js';
import { type BufferedReply, describeReply } from '../replies.js';
import {
  bufferedMessage,
  errorBodyViolations,
  errorTypeOf,
  stopReasonViolations,
  streamedMessage,
} from '../reply-rules.js';
import { failOn, within } from '../violations.js';
import { httpRuns, PROPERTY_BUDGET_MS } from './common.js';

function isClientError(reply: BufferedReply): boolean {
  return reply.status >= 400 && reply.status < 500;
}

/** Judge the reply to every generated invalid body with `judge` (same seed: each body is sent once per run). */
async function forEveryInvalidBody(
  ctx: MessagesServiceCtx,
  env: CheckEnv,
  judge: (label: string, reply: BufferedReply) => void,
): Promise<void> {
  await checkProperty(
    env,
    invalidRequestBody(ctx.model),
    async ({ label, raw }) => judge(label, await ctx.sendOnce(raw)),
    { runs: httpRuns(ctx, env) },
  );
}

export const bodyChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.requests.valid-accepted',
    clause: 'Resources: Message request body',
    description:
      'Valid requests (unicode conversations, tool rounds with one or two tool_result blocks, tools, buffered or streamed) get HTTP 200 and a conformant message.',
    level: 'must',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await checkProperty(
        env,
        validRequestBody(ctx.model),
        async ({ body }) => {
          const raw = JSON.stringify(body);
          const { message, violations } = body.stream
            ? streamedMessage(await sendStreamed(ctx.client, raw, { signal: env.signal }))
            : bufferedMessage(await sendBuffered(ctx.client, raw, { signal: env.signal }));
          const label = body.stream ? 'streamed reply' : 'buffered reply';
          failOn(
            within(label, [...violations, ...(message ? stopReasonViolations(message) : [])]),
            'a valid request must get a conformant reply',
          );
        },
        { runs: httpRuns(ctx, env) },
      );
    },
  },
  {
    id: 'messages-service.errors.invalid-rejected',
    clause: 'Resources: Message request body',
    description:
      'Invalid requests (a required field missing or mistyped, a bad role or block, tool_result in an assistant turn, non-JSON) are refused with a 4xx.',
    level: 'must',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, (label, reply) => {
        if (!isClientError(reply)) {
          throw new CheckFailure(`${label}: not refused`, '4xx', describeReply(reply));
        }
      });
    },
  },
  {
    id: 'messages-service.errors.error-body',
    clause: 'Errors (body not shown in the spec; the real API error body)',
    description: 'A refused request gets the error body {"type":"error","error":{"type","message"}}.',
    level: 'must',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, (label, reply) => {
        if (isClientError(reply)) failOn(within(label, errorBodyViolations(reply)), 'error body');
      });
    },
  },
  {
    id: 'messages-service.errors.invalid-400',
    clause:
      'Resources: Message request body (status not shown in the spec; the real API: 400 invalid_request_error)',
    description:
      'A refused invalid request gets 400 with error type invalid_request_error, as on the real API.',
    level: 'should',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, (label, reply) => {
        if (!isClientError(reply)) return;
        const type = errorTypeOf(reply);
        if (reply.status !== 400 || type !== 'invalid_request_error') {
          throw new CheckFailure(
            `${label}: refused, but not as the real API does`,
            '400 invalid_request_error',
            `${reply.status} ${type ?? '(no error type)'}`,
          );
        }
      });
    },
  },
];
