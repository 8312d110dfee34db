import { type Check, NotExercised } from '../../../harness/check.js';
import type { MessagesServiceCtx } from '../context.js';
import {
  cuttingStopReason,
  deltaUsageViolations,
  errorEnding,
  followStream,
  frameFormatViolations,
  hasEvent,
  messageDeltaViolations,
  messageStartViolations,
  orderViolations,
  pingViolations,
  textStartViolations,
  unknownFieldViolations,
  unknownNameViolations,
} from '../frame-rules.js';
import { RETRY_ERROR_EVENTS } from '../http.js';
import type { StreamedReply } from '../replies.js';
import { streamedMessage, unseenEnd } from '../reply-rules.js';
import { failOn, within } from '../violations.js';
import { framedStreams, type Labeled, NETWORK_BUDGET_MS, okStreams } from './common.js';

/**
 * Why none of the streams could be judged: each was ended by the service's error event, or
 * cut by wirecheck at a limit of its own (`unseenEnd`).
 */
function allEndsUnseen(streams: readonly Labeled<StreamedReply>[], before: string): NotExercised {
  const why = streams.map((s) => `${s.label}: ${unseenEnd(s.reply) ?? 'its end was seen'}`);
  const endings = streams.map((s) => errorEnding(s.reply.frames));
  const head = endings.every((e) => e !== undefined)
    ? "every stream was ended by the service's error event"
    : "every stream was ended by the service's error event or cut by wirecheck at a limit of its own";
  // Transient errors were asked again as a 429 or 529 is: still there, the service is busy.
  const busy = endings.some((e) => e !== undefined && RETRY_ERROR_EVENTS.has(e.type))
    ? '; rate_limit_error and overloaded_error say the service is busy, so run again later'
    : '';
  return new NotExercised(`${head} ${before} (${why.join('; ')})${busy}`);
}

/**
 * The streams that reached an event of `type`, or whose end was seen: a stream the service
 * ended with an error event (the real API does), or that wirecheck stopped reading at its own
 * limit, need not have reached it.
 */
function reaching(streams: readonly Labeled<StreamedReply>[], type: string): Labeled<StreamedReply>[] {
  const judged = streams.filter((s) => hasEvent(s.reply.frames, type) || unseenEnd(s.reply) === undefined);
  if (judged.length === 0) throw allEndsUnseen(streams, `before ${type}`);
  return judged;
}

export const streamChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.stream.frame-format',
    clause: 'Events: stream frames',
    description:
      'Each frame is an `event:` line and a `data:` line with JSON whose `type` equals the event name, closed by a blank line.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: each stream frame is an `event:` line and a `data:` line holding JSON whose `type` equals the event name, closed by a blank line. Every messages service. A stray `id:` or `retry:` line after the last frame dispatches nothing (SSE) and is no unclosed frame.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await framedStreams(ctx, { orUnclosed: true });
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
    basis: 'spec',
    rule: 'The spec (Events rule 1): message_start, then for each block content_block_start, one or more content_block_delta and content_block_stop, then message_delta, then message_stop. Every messages service. A stream the service ends with an `error` event, as the real API may (the spec: an error event within the stream is not shown), or that wirecheck stopped reading at a limit of its own (frames or bytes of one reply) before the service ended it, is judged up to there; when every stream was, the check is not exercised.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      const undetermined: string[] = [];
      const found = streams.flatMap((s) => {
        const verdict = orderViolations(
          s.reply.frames,
          followStream(s.reply.frames),
          s.reply.readError,
          s.reply.cutByWirecheck,
        );
        if (verdict.undetermined !== undefined) undetermined.push(`${s.label}: ${verdict.undetermined}`);
        return within(s.label, verdict.violations, s.reply);
      });
      failOn(found, 'frame order (Events rule 1)');
      if (streams.every((s) => unseenEnd(s.reply) !== undefined)) {
        throw allEndsUnseen(streams, 'before message_stop');
      }
      if (undetermined.length > 0) {
        throw new NotExercised(undetermined.join('; '));
      }
    },
  },
  {
    id: 'messages-service.stream.message-start',
    clause: 'Events: message_start',
    description:
      'message_start carries the message container: content [], stop_reason null, stop_sequence null, usage with input_tokens.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: message_start carries the message container with empty content, stop_reason null, stop_sequence null and usage holding the input count. Every messages service. A stream the service ended with an `error` event before message_start, or that wirecheck stopped reading at a limit of its own before it, is not judged.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = reaching(await okStreams(ctx), 'message_start');
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
    basis: 'spec',
    rule: 'The spec: message_delta carries the stop reason and stop_sequence in `delta` and the final output_tokens in `usage`. Every messages service. A stop reason the spec does not list (`refusal`, `pause_turn`) is tolerated; a stream the service ended with an `error` event before message_delta, or that wirecheck stopped reading at a limit of its own before it, is not judged.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = reaching(await okStreams(ctx), 'message_delta');
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
    basis: 'spec',
    rule: 'The spec (Events rule 2): content block deltas contain no token counts; usage travels in message_start and message_delta. Every messages service.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const judged = (await framedStreams(ctx)).map((s) => ({ s, ...deltaUsageViolations(s.reply.frames) }));
      failOn(
        judged.flatMap(({ s, violations }) => within(s.label, violations, s.reply)),
        'token counts in a content_block_delta (Events rule 2)',
      );
      // A delta whose data is not a JSON object has no keys to judge: it counts for nothing here.
      if (!judged.some((j) => j.deltas > 0))
        throw new NotExercised('the streams held no content_block_delta frame whose data is a JSON object');
    },
  },
  {
    id: 'messages-service.stream.reduces-to-message',
    clause: 'States: stream of one message',
    description:
      'The stream runs from message_start to message_stop through well-formed frames and folds into one complete message.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (States: stream of one message): a stream runs from message_start to message_stop through well-formed frames and carries one complete message. Every messages service. Blocks and deltas of types the spec does not describe are skipped, as a reader of the real API skips them; null counts in message_delta usage keep the counts of message_start. A stream its stop reason cut mid tool input (max_tokens, refusal...) breaks no rule, nor one the service ended with an `error` event as the real API does (the spec: an error event within the stream is not shown), nor one wirecheck stopped reading at a limit of its own (frames or bytes of one reply) before the service ended it; when no stream folded into a message, the check is not exercised.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      const whole = streams.filter((s) => errorEnding(s.reply.frames) === undefined);
      if (whole.length === 0) throw allEndsUnseen(streams, 'before message_stop');
      const folded = whole.map((s) => ({ s, ...streamedMessage(s.reply) }));
      failOn(
        folded.flatMap(({ s, violations }) => within(s.label, violations, s.reply)),
        'the stream does not fold into a message',
      );
      // A stream cut mid tool input by its stop reason broke no rule, but shows no whole message either.
      if (!folded.some((f) => f.message !== undefined)) {
        const why = streams.map(
          (s) =>
            `${s.label}: ${unseenEnd(s.reply) ?? `cut mid tool input by stop reason ${JSON.stringify(cuttingStopReason(s.reply.frames))}`}`,
        );
        throw new NotExercised(`no stream folded into a message (${why.join('; ')})`);
      }
    },
  },
  {
    id: 'messages-service.stream.ping-shape',
    clause: 'Events: ping',
    description: 'A ping frame (optional keep-alive) is `event: ping` with data {"type":"ping"}.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a ping frame (optional) is `event: ping` with data {"type": "ping"}. Every messages service that sends pings.',
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
        throw new NotExercised('the streams held no ping frame (pings are optional)');
    },
  },
  {
    id: 'messages-service.stream.unknown-events',
    clause: 'Events: stream frames (event names outside the spec list)',
    description:
      'Streams use only the event names of the spec (clients of the real API ignore others, so this only warns).',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec lists seven event names. The real API adds event types over time and asks clients to ignore the ones they do not know, so another name is no fault; it is pointed out with a warning, since clients built to the spec alone may trip on it.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await framedStreams(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, unknownNameViolations(s.reply.frames), s.reply)),
        'a name outside the spec',
      );
    },
  },

  {
    id: 'messages-service.stream.unknown-fields',
    clause: 'Events: stream frames (each frame an event: line and a data: line)',
    description:
      'Streams hold no SSE lines other than event:, data:, id:, retry: and comments (readers ignore others, so this only warns).',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec shows frames made of `event:` and `data:` lines, and the real API sends nothing else; the SSE format tells readers to ignore lines of other fields, so such a line breaks no reader. It is pointed out with a warning.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await framedStreams(ctx);
      failOn(
        streams.flatMap((s) => within(s.label, unknownFieldViolations(s.reply.invalidLines), s.reply)),
        'a line of a field the spec does not use',
      );
    },
  },
  {
    id: 'messages-service.stream.text-start-empty',
    clause: 'Events: content_block_start ({type: text, text: ""})',
    description: 'A text content_block_start carries empty text; the deltas that follow carry the text.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: content_block_start opens a text block as {type: text, text: ""}, and content_block_delta frames fill it. Every messages service; a client that builds the text from the deltas alone would lose text sent in the start.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const streams = await okStreams(ctx);
      const verdicts = streams.map((s) => ({ s, ...textStartViolations(s.reply.frames) }));
      failOn(
        verdicts.flatMap((v) => within(v.s.label, v.violations, v.s.reply)),
        'a text block must start empty',
      );
      if (verdicts.every((v) => v.starts === 0)) throw new NotExercised('the streams held no text block');
    },
  },
];
