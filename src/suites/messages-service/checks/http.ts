import { type Check, CheckSkipped } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import { headerOf } from '../replies.js';
import { bufferedContentTypeViolations, streamHeaderViolations } from '../reply-rules.js';
import { failOn, violation, within } from '../violations.js';
import { bufferedReplies, NETWORK_BUDGET_MS, streamedReplies } from './common.js';

export const httpChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.http.buffered-content-type',
    clause: 'Endpoints: POST /v1/messages',
    description: 'A buffered reply is an HTTP JSON body: content type application/json.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const ok = (await bufferedReplies(ctx)).filter((r) => r.reply.status === 200);
      if (ok.length === 0)
        throw new CheckSkipped(
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
    description: 'Every reply carries a request-id header, as the real API does.',
    level: 'should',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const replies = [...(await bufferedReplies(ctx)), ...(await streamedReplies(ctx))];
      failOn(
        replies
          .filter((r) => !headerOf(r.reply.headers, 'request-id'))
          .map((r) => violation(r.label, 'a request-id header', 'none')),
        'replies should name their request',
      );
    },
  },
];
