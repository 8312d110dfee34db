import { type Check, NotExercised } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import { bufferedContentTypeViolations, bufferedMessage, stopSequenceViolations } from '../reply-rules.js';
import { failOn, within } from '../violations.js';
import { bufferedReplies, NETWORK_BUDGET_MS, sharedMessages } from './common.js';

export const bufferedChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.buffered.message-shape',
    clause: 'Resources: Message response (buffered)',
    description:
      'A buffered reply is HTTP 200 with the message: id, type message, role assistant, model, content blocks, a stop_reason, stop_sequence, usage.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a buffered reply is the message: id, type `message`, role `assistant`, model, content blocks, stop_reason, stop_sequence and usage with integer input_tokens and output_tokens. Every messages service. A stop reason or block type the spec does not list (the real API adds them) is tolerated.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const replies = await bufferedReplies(ctx);
      failOn(
        replies.flatMap((r) => within(r.label, bufferedMessage(r.reply).violations)),
        'a buffered reply must be a message',
      );
    },
  },
  {
    id: 'messages-service.buffered.explicit-stream-false',
    clause: 'Resources: Message request body (stream: absent or false is buffered)',
    description:
      'A request with "stream": false written out gets a buffered JSON message, like one without it.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: `stream` absent or false selects the buffered reply. Every messages service answers `"stream": false` with the JSON message, not a stream or an error.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.explicitFalse();
      const label = 'reply to "stream": false';
      const shape = bufferedMessage(reply).violations;
      failOn(
        within(label, [...shape, ...(shape.length === 0 ? bufferedContentTypeViolations(reply) : [])]),
        'an explicit "stream": false must be buffered',
      );
    },
  },
  {
    id: 'messages-service.buffered.stop-sequence',
    clause: 'Resources: Message response (stop_reason, stop_sequence)',
    description:
      'stop_sequence is a string exactly when stop_reason is stop_sequence (a request with stop_sequences asks for one), null otherwise.',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec lists stop_reason `stop_sequence` and a stop_sequence field (string or null) without tying them; the real API fills stop_sequence with the sequence that stopped the reply exactly when stop_reason is stop_sequence, and sends null otherwise. A warning.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const messages = await sharedMessages(ctx);
      const stopped = bufferedMessage(await ctx.shared.stopSequence()).message;
      if (stopped) messages.push({ label: 'reply to a request with stop_sequences', reply: stopped });
      if (messages.length === 0) {
        throw new NotExercised(
          'no request got a message to judge (see the buffered and stream shape checks)',
        );
      }
      failOn(
        messages.flatMap((m) => within(m.label, stopSequenceViolations(m.reply))),
        'stop_sequence and stop_reason disagree',
      );
    },
  },
];
