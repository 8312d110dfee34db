import { type Check, CheckFailure, CheckSkipped } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import { describeReply } from '../replies.js';
import { errorBodyViolations, errorTypeOf } from '../reply-rules.js';
import { failOn, within } from '../violations.js';
import { NETWORK_BUDGET_MS } from './common.js';

export const authChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.auth.missing-key-rejected',
    clause: 'Authentication',
    description: 'A request without x-api-key is refused with a client error (4xx).',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.missingKey();
      if (reply.status >= 400 && reply.status < 500) return;
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
    id: 'messages-service.auth.missing-key-401',
    clause: 'Authentication (not in the spec; the real API answers 401 authentication_error)',
    description: 'A request without x-api-key gets 401 with the error body of type authentication_error.',
    level: 'should',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.missingKey();
      if (reply.status < 400 || reply.status >= 500) {
        throw new CheckSkipped(
          'the request was not refused at all; see messages-service.auth.missing-key-rejected',
        );
      }
      if (reply.status !== 401) {
        throw new CheckFailure(
          'a missing key should get 401, as on the real API',
          '401',
          describeReply(reply),
        );
      }
      failOn(within('missing-key reply', errorBodyViolations(reply)), 'the 401 should have the error body');
      const type = errorTypeOf(reply);
      if (type !== 'authentication_error') {
        throw new CheckFailure(
          'the 401 error type should be authentication_error',
          'authentication_error',
          type,
        );
      }
    },
  },
];
