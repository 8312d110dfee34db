import type { Check } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import { bufferedMessage } from '../reply-rules.js';
import { failOn, within } from '../violations.js';
import { bufferedReplies, NETWORK_BUDGET_MS } from './common.js';

export const bufferedChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.buffered.message-shape',
    clause: 'Resources: Message response (buffered)',
    description:
      'A buffered reply is HTTP 200 with the message: id, type message, role assistant, model, text/tool_use content, a stop_reason of the enum, stop_sequence, usage.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const replies = await bufferedReplies(ctx);
      failOn(
        replies.flatMap((r) => within(r.label, bufferedMessage(r.reply).violations)),
        'a buffered reply must be a message',
      );
    },
  },
];
