import { type Check, CheckFailure, show } from '../../../harness/check.js';
import type { FaultPlan } from '../../../mocks/messages/index.js';
import { eventsOfMessage, type Message, type StreamEvent } from '../../../protocol/messages/index.js';
import { expectCleanStreamHandled, failureOfVariation } from '../clean-stream.js';
import { always, type MessagesClientCtx } from '../context.js';
import { describeRequests, expectClientError, expectFinalMessage, expectStreamFlag } from '../expect.js';
import { MIXED_MESSAGE } from '../messages.js';
import { describeRun } from '../output.js';
import { requestFor } from '../requests.js';
import { servedFramesEvidence, withServedFrames } from '../served-frames.js';
import { CASE_BUDGET_MS, runStreamed } from './common.js';

/** MIXED_MESSAGE's frames: 0 message_start, 1 content_block_start, 2 text delta, 3 content_block_stop... */
const FIRST_DELTA = 2;
/** MIXED_MESSAGE's last frame, message_stop, right after message_delta. */
const MESSAGE_STOP = eventsOfMessage(MIXED_MESSAGE).findIndex((e) => e.type === 'message_stop');

/** A stream fault that the client must report as a failure of one of `kinds` (a must rule). */
function streamFault(
  id: string,
  clause: string,
  label: string,
  faults: FaultPlan,
  kinds: readonly ('stream' | 'connection')[],
  basis: 'spec' | 'contract',
  rule: string,
): Check<MessagesClientCtx> {
  return {
    id,
    clause,
    description: `${label[0]!.toUpperCase()}${label.slice(1)} makes the client fail with kind ${kinds.join(' or ')}.`,
    level: 'must',
    basis,
    rule,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await runStreamed(ctx, env, MIXED_MESSAGE, { faults });
      expectStreamFlag(result, true, label);
      withServedFrames(
        () => expectClientError(result, kinds, label),
        () => servedFramesEvidence(MIXED_MESSAGE, undefined, faults, result.requests),
      );
      await expectCleanStreamHandled(ctx, MIXED_MESSAGE, label);
    },
  };
}

/**
 * A stream the real API never sends: the client may either report it (kind stream) or
 * print exactly the message it carries; a different message, or a crash, is what warns.
 */
function reportOrRecover(
  id: string,
  clause: string,
  label: string,
  faults: FaultPlan,
  rule: string,
): Check<MessagesClientCtx> {
  return {
    id,
    clause,
    description: `${label[0]!.toUpperCase()}${label.slice(1)}: the client either fails with kind stream or prints the message the stream carries, never another one.`,
    level: 'should',
    basis: 'real-api',
    rule,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await runStreamed(ctx, env, MIXED_MESSAGE, { faults });
      expectStreamFlag(result, true, label);
      if (result.outcome.type === 'error' && result.outcome.error.kind === 'stream') {
        await expectCleanStreamHandled(ctx, MIXED_MESSAGE, label);
        return;
      }
      const evidence = () => servedFramesEvidence(MIXED_MESSAGE, undefined, faults, result.requests);
      if (result.outcome.type !== 'printed') {
        withServedFrames(
          () => expectClientError(result, ['stream'], `${label} (or the message it carries)`),
          evidence,
        );
        return;
      }
      try {
        withServedFrames(() => expectFinalMessage(result, MIXED_MESSAGE, label), evidence);
      } catch (error) {
        if (!(error instanceof CheckFailure)) throw error;
        throw await failureOfVariation(ctx, MIXED_MESSAGE, result, error, label);
      }
    },
  };
}

/** A message whose one tool_use block's input is sent as `fragments` (not a JSON object once joined). */
const TOOL_MESSAGE: Message = {
  ...MIXED_MESSAGE,
  id: 'msg_wc_tool_json',
  content: [{ type: 'tool_use', id: 'toolu_wc_json', name: 'bash', input: { command: 'ls' } }],
};

function toolStream(fragments: readonly string[]): StreamEvent[] {
  const events = eventsOfMessage(TOOL_MESSAGE);
  const delta = events.findIndex((e) => e.type === 'content_block_delta');
  const deltas: StreamEvent[] = fragments.map((partial_json) => ({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'input_json_delta', partial_json },
  }));
  return [...events.slice(0, delta), ...deltas, ...events.slice(delta + 1)];
}

/** How long a stalled stream may keep the client waiting (the spec's longest idle closure, 60 s, plus half). */
export const STALL_ALLOWANCE_MS = 90_000;

export const streamErrorChecks: Check<MessagesClientCtx>[] = [
  streamFault(
    'messages-client.stream-errors.error-event-first',
    'target contract (README), messages-client: kind stream (an error event in the stream); the real API sends event: error after the 200',
    'an error event as the first frame',
    { errorEvent: { atFrame: 0 } },
    ['stream'],
    'contract',
    'The target contract: a malformed stream or an error event in it makes the client fail with kind stream. The real API sends `event: error` after the 200 (its body "not shown" in the spec). Every messages client.',
  ),
  streamFault(
    'messages-client.stream-errors.error-event-mid-stream',
    'target contract (README), messages-client: kind stream (an error event in the stream); the real API sends event: error after the 200',
    'an error event in the middle of a text block',
    { errorEvent: { atFrame: FIRST_DELTA + 1 } },
    ['stream'],
    'contract',
    'The target contract: an error event in the stream makes the client fail with kind stream, also after part of the message arrived. Every messages client.',
  ),
  streamFault(
    'messages-client.stream-errors.error-event-before-stop',
    'target contract (README), messages-client: kind stream (an error event in the stream); the real API sends event: error after the 200',
    'an error event after message_delta, in place of message_stop',
    // The real API ends a stream with its error event: nothing follows it, message_stop neither.
    { errorEvent: { atFrame: MESSAGE_STOP } },
    ['stream'],
    'contract',
    'The target contract: an error event in the stream makes the client fail with kind stream, also when the message it would print is whole (message_delta carried its stop reason and usage). The stream then ends without message_stop, as the real API ends it after an error event. The other error-event checks end the stream before message_delta, where a client that ignores error events still fails for the cut; a client that ignores them and prints a stream ending after message_delta (which stream-errors.no-message-stop allows, as the Python SDK does) is caught here. Every messages client.',
  ),
  streamFault(
    'messages-client.stream-errors.malformed-json',
    'Events: data is JSON; target contract (README), messages-client: kind stream (malformed stream)',
    'a content_block_delta frame whose data is not JSON',
    { malformed: [{ atFrame: FIRST_DELTA, kind: 'invalid-json' }] },
    ['stream'],
    'contract',
    'The spec: frame data is JSON; the target contract: a malformed stream makes the client fail with kind stream rather than print a message. Every messages client.',
  ),
  reportOrRecover(
    'messages-client.stream-errors.no-message-stop',
    'Events rule 1; States: message_stop is terminal, the stream closes cleanly after it (rules for the service)',
    'a stream that ends cleanly after message_delta without message_stop',
    { omitMessageStop: true },
    'The spec makes the service end a stream with message_stop; it says nothing of what a client does with a stream that ends cleanly after message_delta, when the message is whole (message_delta carried its stop reason and usage). The official SDKs differ: the TypeScript SDK reports it, the Python SDK returns the message. A client that reports kind stream or prints exactly that message is fine; one that prints another message (the text without its stop reason, say) or crashes gets a warning.',
  ),
  {
    id: 'messages-client.stream-errors.ends-mid-block',
    clause: 'Events rule 1; target contract (README), messages-client: kind stream (malformed stream)',
    description:
      'A stream that ends cleanly in the middle of a block (no message_delta, no message_stop) is a failure.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Events rule 1): a stream ends with message_delta and message_stop; one that ends inside a block is cut short. Every messages client reports it (kind stream) instead of printing a message.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const frames = eventsOfMessage(MIXED_MESSAGE).slice(0, FIRST_DELTA + 1);
      const result = await ctx.runCase({
        scenario: always({ kind: 'raw', frames }),
        body: requestFor(MIXED_MESSAGE, true),
        signal: env.signal,
      });
      expectStreamFlag(result, true, 'a stream that ends after the first text delta');
      expectClientError(result, ['stream'], 'a stream that ends after the first text delta');
      await expectCleanStreamHandled(ctx, MIXED_MESSAGE, 'the end after the first text delta');
    },
  },
  streamFault(
    'messages-client.stream-errors.disconnect',
    'Errors: a truncated stream is a failure (target contract (README), messages-client: kind stream, or connection)',
    'the connection cut after the first text delta',
    { disconnectAfterFrame: FIRST_DELTA + 1 },
    ['stream', 'connection'],
    'spec',
    'The spec (Errors): a connection cut mid-stream is a truncated stream. Every messages client reports it (kind stream or connection) instead of printing what it had.',
  ),
  {
    id: 'messages-client.stream-errors.stall',
    clause:
      'Limits: idle connections are closed by intermediaries after 30 to 60 seconds (the spec states no client idle timeout)',
    description: `A stream that goes silent after message_start ends in a failure (kind stream or connection) within ${STALL_ALLOWANCE_MS / 1000} s instead of hanging.`,
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec states no client idle timeout; it says intermediaries close idle connections after 30 to 60 seconds. A client that waits forever on a stream that went silent gets a warning.',
    tier: 'full',
    timeoutMs: STALL_ALLOWANCE_MS + 30_000,
    async run(ctx, env) {
      const result = await ctx.runCase({
        scenario: always({ kind: 'message', message: MIXED_MESSAGE, faults: { stall: { afterFrame: 1 } } }),
        body: requestFor(MIXED_MESSAGE, true),
        timeoutMs: STALL_ALLOWANCE_MS,
        signal: env.signal,
      });
      expectStreamFlag(result, true, 'a stream that stalls after message_start');
      if (result.run.timedOut) {
        throw new CheckFailure(
          `the client was still waiting ${STALL_ALLOWANCE_MS / 1000} s after it started; the stream went silent after message_start (${describeRun(result.run)})`,
          'exit non-zero with kind stream or connection',
          'no exit',
        );
      }
      expectClientError(result, ['stream', 'connection'], 'a stream that stalls after message_start');
      await expectCleanStreamHandled(ctx, MIXED_MESSAGE, 'the stall after message_start');
    },
  },

  reportOrRecover(
    'messages-client.stream-errors.type-mismatch',
    'Events: the JSON type equals the event name (a rule for the service)',
    'a content_block_delta frame sent under event: content_block_stop',
    { malformed: [{ atFrame: FIRST_DELTA, kind: 'type-mismatch', eventName: 'content_block_stop' }] },
    'The spec makes the service send a data type equal to the event name; it says nothing of what a client does when they disagree, and the real API never sends that. A client that either reports kind stream or prints the message the stream carries is fine; one that prints a different message or crashes gets a warning.',
  ),
  reportOrRecover(
    'messages-client.stream-errors.no-event-line',
    'Events: each frame is an event: line and a data: line (a rule for the service)',
    'a content_block_delta frame without an event: line',
    { malformed: [{ atFrame: FIRST_DELTA, kind: 'no-event-line' }] },
    'The spec makes the service send an event: line with every frame; the real API always does, and SSE readers give such a frame the name "message". A client that reports kind stream or folds the frame by its data type is fine; one that drops the frame silently (printing a message without its text) or crashes gets a warning.',
  ),
  {
    id: 'messages-client.stream-errors.invalid-tool-json',
    clause: 'Events rule 3 (the concatenated partial_json is parsed once, at content_block_stop)',
    description:
      'Tool input fragments that do not join into a JSON object (cut short, or not JSON) make the client fail with kind stream instead of inventing an input.',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec (Events rule 3): a consumer joins the partial_json fragments of a block and parses the result once, at content_block_stop; it does not say what a consumer does when that is not JSON. The real API never sends it, and the official SDK completes cut JSON silently; a client that reports kind stream instead of running a tool with an input it made up is the safe one, so any other outcome is a warning.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const cases: [string, string[]][] = [
        ['tool input cut short at content_block_stop', ['{"command": "l', 's"']],
        ['tool input that is not JSON', ['{"command" ', '"ls"}']],
      ];
      for (const [what, fragments] of cases) {
        const result = await ctx.runCase({
          scenario: always({ kind: 'raw', frames: toolStream(fragments) }),
          body: requestFor(TOOL_MESSAGE, true),
          signal: env.signal,
        });
        expectStreamFlag(result, true, what);
        if (result.outcome.type === 'printed') {
          throw new CheckFailure(
            `${what}: the client printed a message with an input it made up (fragments ${JSON.stringify(fragments.join(''))}; requests: ${describeRequests(result.requests)})`,
            'exit non-zero with {"error":{"kind":"stream",...}}',
            show(result.outcome.value),
          );
        }
        expectClientError(result, ['stream'], what);
      }
      await expectCleanStreamHandled(ctx, TOOL_MESSAGE, 'the broken tool input');
    },
  },
];
