import { setTimeout } from 'node:timers/promises';
import { type Check, NotExercised } from '../../../harness/check.js';
import type { SseFrame } from '../../../protocol/sse/index.js';
import type { MessagesServiceCtx } from '../context.js';
import { frameData } from '../frame-rules.js';
import { sendBuffered, sendStreamed } from '../http.js';
import { bufferedMessage } from '../reply-rules.js';
import { textRequest } from '../requests.js';
import { failOn, within } from '../violations.js';
import { NETWORK_BUDGET_MS } from './common.js';

/** Whether the client has its first delta; a frame whose data passed the JSON limits is none. */
export function isDelta(frame: SseFrame): boolean {
  return frame.event === 'content_block_delta' || frameData(frame).data?.type === 'content_block_delta';
}

function isMessageStop(frame: SseFrame): boolean {
  return frame.event === 'message_stop' || frameData(frame).data?.type === 'message_stop';
}

export const abortChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.stream.abort-keeps-service-healthy',
    clause: 'Events rule 5',
    description:
      'A client that aborts a stream after the first delta ends that generation; the service stays healthy and serves the next request.',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec (Events rule 5): a client that stops reading or aborts ends the generation and its billing. That is not observable from outside; what is, is that the service takes the abort in its stride and serves the next request, as the real API does. A warning.',
    timeoutMs: NETWORK_BUDGET_MS,
    // After every other check: a service the abort breaks must not fail the checks beside it.
    schedule: 'last',
    async run(ctx, env) {
      const aborted = await sendStreamed(ctx.client, JSON.stringify(textRequest(ctx.model, true)), {
        signal: env.signal,
        abortAfter: isDelta,
      });
      if (aborted.status !== 200) {
        throw new NotExercised(
          `the stream got HTTP ${aborted.status}; see messages-service.http.stream-content-type`,
        );
      }
      if (!aborted.aborted) throw new NotExercised('the stream ended before its first content_block_delta');
      // Frames come in reads: one that held the first delta and the end too left nothing to abort.
      const ended = aborted.frames.findIndex(isMessageStop);
      if (ended >= 0) {
        throw new NotExercised(
          `the read that brought the first content_block_delta brought message_stop too (frame ${ended} of ${aborted.frames.length}): the whole reply had arrived, so closing the stream aborted nothing`,
        );
      }
      // A service learns of a client's disconnect a little after the client leaves: give it that moment.
      await setTimeout(ctx.abortSettleMs, undefined, { signal: env.signal });
      const next = await sendBuffered(ctx.client, JSON.stringify(textRequest(ctx.model, false)), {
        signal: env.signal,
      });
      failOn(
        within('the request after the abort', bufferedMessage(next).violations),
        'the service after a client abort',
      );
    },
  },
];
