import { type Check, CheckFailure } from '../../../harness/check.js';
import type { FaultPlan } from '../../../mocks/messages/index.js';
import { eventsOfMessage } from '../../../protocol/messages/index.js';
import { always, type MessagesClientCtx } from '../context.js';
import { expectClientError, expectStreamFlag } from '../expect.js';
import { MIXED_MESSAGE } from '../messages.js';
import { describeRun } from '../output.js';
import { plainRequest } from '../requests.js';
import { servedFramesEvidence, withServedFrames } from '../served-frames.js';
import { CASE_BUDGET_MS, runStreamed } from './common.js';

/** MIXED_MESSAGE's frames: 0 message_start, 1 content_block_start, 2 text delta, 3 content_block_stop... */
const FIRST_DELTA = 2;

/** A stream fault that the client must report as a failure of one of `kinds`. */
function streamFault(
  id: string,
  clause: string,
  label: string,
  faults: FaultPlan,
  kinds: readonly ('stream' | 'connection')[],
  level: 'must' | 'should' = 'must',
): Check<MessagesClientCtx> {
  return {
    id,
    clause,
    description: `${label[0]!.toUpperCase()}${label.slice(1)} makes the client fail with kind ${kinds.join(' or ')}.`,
    level,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await runStreamed(ctx, env, MIXED_MESSAGE, { faults });
      expectStreamFlag(result, true, label);
      withServedFrames(
        () => expectClientError(result, kinds, label),
        () => servedFramesEvidence(MIXED_MESSAGE, undefined, faults, result.requests),
      );
    },
  };
}

/** How long a stalled stream may keep the client waiting (the spec's longest idle closure, 60 s, plus half). */
export const STALL_ALLOWANCE_MS = 90_000;

export const streamErrorChecks: Check<MessagesClientCtx>[] = [
  streamFault(
    'messages-client.stream-errors.error-event-first',
    'TARGETS messages-client: kind stream (an error event in the stream); the real API sends event: error after the 200',
    'an error event as the first frame',
    { errorEvent: { atFrame: 0 } },
    ['stream'],
  ),
  streamFault(
    'messages-client.stream-errors.error-event-mid-stream',
    'TARGETS messages-client: kind stream (an error event in the stream); the real API sends event: error after the 200',
    'an error event in the middle of a text block',
    { errorEvent: { atFrame: FIRST_DELTA + 1 } },
    ['stream'],
  ),
  streamFault(
    'messages-client.stream-errors.malformed-json',
    'Events: data is JSON; TARGETS messages-client: kind stream (malformed stream)',
    'a content_block_delta frame whose data is not JSON',
    { malformed: [{ atFrame: FIRST_DELTA, kind: 'invalid-json' }] },
    ['stream'],
  ),
  streamFault(
    'messages-client.stream-errors.type-mismatch',
    'Events: the JSON type equals the event name (a rule for the service; clients that dispatch on data.type cannot notice)',
    'a content_block_delta frame sent under event: content_block_stop',
    { malformed: [{ atFrame: FIRST_DELTA, kind: 'type-mismatch', eventName: 'content_block_stop' }] },
    ['stream'],
    'should',
  ),
  streamFault(
    'messages-client.stream-errors.no-message-stop',
    'Events rule 1; States: message_stop is terminal, the stream closes cleanly after it',
    'a stream that ends cleanly after message_delta without message_stop',
    { omitMessageStop: true },
    ['stream'],
  ),
  {
    id: 'messages-client.stream-errors.ends-mid-block',
    clause: 'Events rule 1; TARGETS messages-client: kind stream (malformed stream)',
    description:
      'A stream that ends cleanly in the middle of a block (no message_delta, no message_stop) is a failure.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const frames = eventsOfMessage(MIXED_MESSAGE).slice(0, FIRST_DELTA + 1);
      const result = await ctx.runCase({
        scenario: always({ kind: 'raw', frames }),
        body: plainRequest(true),
        signal: env.signal,
      });
      expectClientError(result, ['stream'], 'a stream that ends after the first text delta');
    },
  },
  streamFault(
    'messages-client.stream-errors.disconnect',
    'Errors: a truncated stream is a failure (TARGETS messages-client: kind stream, or connection)',
    'the connection cut after the first text delta',
    { disconnectAfterFrame: FIRST_DELTA + 1 },
    ['stream', 'connection'],
  ),
  {
    id: 'messages-client.stream-errors.stall',
    clause:
      'Limits: idle connections are closed by intermediaries after 30 to 60 seconds (the spec states no client idle timeout)',
    description: `A stream that goes silent after message_start ends in a failure (kind stream or connection) within ${STALL_ALLOWANCE_MS / 1000} s instead of hanging.`,
    level: 'should',
    tier: 'full',
    timeoutMs: STALL_ALLOWANCE_MS + 30_000,
    async run(ctx, env) {
      const result = await ctx.runCase({
        scenario: always({ kind: 'message', message: MIXED_MESSAGE, faults: { stall: { afterFrame: 1 } } }),
        body: plainRequest(true),
        timeoutMs: STALL_ALLOWANCE_MS,
        signal: env.signal,
      });
      if (result.run.timedOut) {
        throw new CheckFailure(
          `the client was still waiting ${STALL_ALLOWANCE_MS / 1000} s after it started; the stream went silent after message_start (${describeRun(result.run)})`,
          'exit non-zero with kind stream or connection',
          'no exit',
        );
      }
      expectClientError(result, ['stream', 'connection'], 'a stream that stalls after message_start');
    },
  },
];
