import { type Check, CheckSkipped } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import {
  deltaUsageViolations,
  followStream,
  frameFormatViolations,
  messageDeltaViolations,
  messageStartViolations,
  orderViolations,
  pingViolations,
  unknownNameViolations,
} from '../frame-rules.js';
import { streamedMessage } from '../reply-rules.js';
import { failOn, within } from '../violations.js';
import { NETWORK_BUDGET_MS, okStreams } from './common.js';

export const streamChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.stream.frame-format',
    clause: 'Events: stream frames',
    description:
      'Each frame is an `event:` line and a `data:` line with JSON whose `type` equals the event name, closed by a blank line.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      failOn(
        streams.flatMap((s) =>
          within(s.label, frameFormatViolations(s.reply.frames, s.reply.unterminated), s.reply),
        ),
        'frame format',
      );
    },
  },
  {
    id: 'messages-service.stream.order',
    clause: 'Events rule 1',
    description:
      'message_start, then per block content_block_start, one or more content_block_delta, content_block_stop, then message_delta, then message_stop.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      const undetermined: string[] = [];
      const found = streams.flatMap((s) => {
        const verdict = orderViolations(s.reply.frames, followStream(s.reply.frames), s.reply.readError);
        if (verdict.undetermined !== undefined) undetermined.push(`${s.label}: ${verdict.undetermined}`);
        return within(s.label, verdict.violations, s.reply);
      });
      failOn(found, 'frame order (Events rule 1)');
      if (undetermined.length > 0) {
        throw new CheckSkipped(`${undetermined.join('; ')}; see messages-service.stream.reduces-to-message`);
      }
    },
  },
  {
    id: 'messages-service.stream.message-start',
    clause: 'Events: message_start',
    description:
      'message_start carries the message container: content [], stop_reason null, stop_sequence null, usage with input_tokens.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, messageStartViolations(s.reply.frames), s.reply)),
        'message_start contents',
      );
    },
  },
  {
    id: 'messages-service.stream.message-delta',
    clause: 'Events: message_delta',
    description: 'message_delta carries a stop_reason of the enum and the final usage.output_tokens.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, messageDeltaViolations(s.reply.frames), s.reply)),
        'message_delta contents',
      );
    },
  },
  {
    id: 'messages-service.stream.no-usage-in-deltas',
    clause: 'Events rule 2',
    description: 'Content block deltas contain no token counts.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, deltaUsageViolations(s.reply.frames), s.reply)),
        'token counts in a content_block_delta (Events rule 2)',
      );
    },
  },
  {
    id: 'messages-service.stream.reduces-to-message',
    clause: 'States: stream of one message',
    description:
      'The stream runs from message_start to message_stop through well-formed frames and folds into one complete message.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, streamedMessage(s.reply).violations, s.reply)),
        'the stream does not fold into a message',
      );
    },
  },
  {
    id: 'messages-service.stream.ping-shape',
    clause: 'Events: ping',
    description: 'A ping frame (optional keep-alive) is `event: ping` with data {"type":"ping"}.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      const verdicts = streams.map((s) => ({
        label: s.label,
        reply: s.reply,
        ...pingViolations(s.reply.frames),
      }));
      failOn(
        verdicts.flatMap((v) => within(v.label, v.violations, v.reply)),
        'ping frame',
      );
      if (verdicts.every((v) => v.pings === 0))
        throw new CheckSkipped('the streams held no ping frame (pings are optional)');
    },
  },
  {
    id: 'messages-service.stream.unknown-events',
    clause: 'Events: stream frames (event names outside the spec list)',
    description: 'Streams use only the event names of the spec (clients ignore others, so this only warns).',
    level: 'should',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      failOn(
        streams.flatMap((s) =>
          within(s.label, unknownNameViolations(s.reply.frames, s.reply.invalidLines), s.reply),
        ),
        'a name outside the spec',
      );
    },
  },
];
