import { type Check, type CheckEnv, CheckFailure, NotExercised } from '../../../harness/check.js';
import type { Reply } from '../../../mocks/messages/index.js';
import { eventsOfMessage, type Message } from '../../../protocol/messages/index.js';
import { failureOfVariation } from '../clean-stream.js';
import { always, type MessagesClientCtx } from '../context.js';
import { expectFinalMessage, expectStreamFlag } from '../expect.js';
import { MIXED_MESSAGE } from '../messages.js';
import { requestFor } from '../requests.js';
import { CASE_BUDGET_MS } from './common.js';

type Frame = { type: string; [key: string]: unknown };

const THINKING_START: Frame = {
  type: 'content_block_start',
  index: 0,
  content_block: { type: 'thinking', thinking: '', signature: '' },
};

/** The events of `message` with every block index moved up by `by` (room for blocks put first). */
function shifted(message: Message, by: number): Frame[] {
  return eventsOfMessage(message).map((e) => {
    const frame = { ...e } as Frame;
    if (typeof frame.index === 'number') frame.index += by;
    return frame;
  });
}

/** A thinking block (with thinking_delta and signature_delta) before the message's blocks. */
function thinkingFirst(message: Message): Frame[] {
  const events = shifted(message, 1);
  return [
    events[0]!,
    THINKING_START,
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me look.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } },
    { type: 'content_block_stop', index: 0 },
    ...events.slice(1),
  ];
}

/** A citations_delta (and a delta type nobody knows yet) inside the first text block. */
function textWithOtherDeltas(message: Message): Frame[] {
  const events = shifted(message, 0);
  const at = events.findIndex((e) => (e.delta as { type?: string } | undefined)?.type === 'text_delta');
  const citation: Frame = {
    type: 'content_block_delta',
    index: events[at]!.index,
    delta: {
      type: 'citations_delta',
      citation: {
        type: 'char_location',
        cited_text: 'Привет',
        document_index: 0,
        document_title: 'wirecheck',
        start_char_index: 0,
        end_char_index: 6,
      },
    },
  };
  const future: Frame = { ...citation, delta: { type: 'wirecheck_future_delta', value: 1 } };
  return [...events.slice(0, at), citation, events[at]!, future, ...events.slice(at + 1)];
}

/** The message_delta carries more usage counters than the spec names. */
function moreUsage(message: Message): Frame[] {
  return shifted(message, 0).map((e) =>
    e.type === 'message_delta'
      ? {
          ...e,
          usage: {
            input_tokens: message.usage.input_tokens,
            output_tokens: message.usage.output_tokens,
            cache_creation_input_tokens: 7,
            cache_read_input_tokens: 11,
            server_tool_use: { web_search_requests: 0 },
          },
        }
      : e,
  );
}

/** The buffered body of `message` with unknown blocks added, served byte for byte. */
function bufferedWithUnknownBlocks(message: Message): Reply {
  const body = {
    ...message,
    content: [
      { type: 'thinking', thinking: 'Let me look.', signature: 'c2lnbmF0dXJl' },
      { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' },
      ...message.content,
    ],
    usage: { ...message.usage, cache_read_input_tokens: 3 },
  };
  return {
    kind: 'recorded',
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      headersAtMs: 0,
      chunks: [{ atMs: 0, text: JSON.stringify(body) }],
      end: 'complete',
      endAtMs: 0,
    },
  };
}

/**
 * The client prints `expected` from `reply`. Streamed, a failure it shares with the plain stream
 * of `plain` is not judged (failureOfVariation): raw frames of `expected` with something added
 * are a variation of its own plain stream; a message with a value the spec does not list, of
 * the same message with one it lists.
 */
async function expectTolerated(
  ctx: MessagesClientCtx,
  env: CheckEnv,
  reply: Reply,
  stream: boolean,
  expected: Message,
  what: string,
  plain: Message | undefined = reply.kind === 'raw' ? expected : undefined,
): Promise<void> {
  const result = await ctx.runCase({
    scenario: always(reply),
    body: requestFor(expected, stream),
    signal: env.signal,
  });
  expectStreamFlag(result, stream, what);
  try {
    expectFinalMessage(result, expected, what);
  } catch (error) {
    if (!(error instanceof CheckFailure) || !stream || plain === undefined) throw error;
    throw await failureOfVariation(ctx, plain, result, error, what, expected);
  }
}

const TOLERANCE =
  'The real API adds content block types, delta types, stop reasons and usage counters over time, and asks clients to skip what they do not know.';

export const forwardCompatChecks: Check<MessagesClientCtx>[] = [
  {
    id: 'messages-client.compat.unknown-block-streamed',
    clause: "Content blocks; Events (block types beyond the spec: the real API's thinking blocks)",
    description:
      "A stream with a thinking block (thinking_delta, signature_delta) before the spec's blocks: the client prints the text and tool_use blocks unharmed.",
    level: 'should',
    basis: 'real-api',
    rule: `${TOLERANCE} A stream with a block type the spec does not describe neither crashes the client nor changes the blocks it does know; the unknown block may be kept or dropped. A warning.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectTolerated(
        ctx,
        env,
        { kind: 'raw', frames: thinkingFirst(MIXED_MESSAGE) },
        true,
        MIXED_MESSAGE,
        'a thinking block before the blocks of the message',
      );
    },
  },
  {
    id: 'messages-client.compat.unknown-block-buffered',
    clause: 'Resources: Message response (buffered); Content blocks (block types beyond the spec)',
    description:
      'A buffered reply with thinking and redacted_thinking blocks: the client prints the text and tool_use blocks unharmed.',
    level: 'should',
    basis: 'real-api',
    rule: `${TOLERANCE} A buffered reply with block types the spec does not describe neither crashes the client nor changes the blocks it does know; the unknown ones may be kept or dropped. A warning.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectTolerated(
        ctx,
        env,
        bufferedWithUnknownBlocks(MIXED_MESSAGE),
        false,
        MIXED_MESSAGE,
        'a buffered reply with block types beyond the spec',
      );
    },
  },
  {
    id: 'messages-client.compat.unknown-deltas',
    clause: 'Events: content_block_delta (delta types beyond text_delta and input_json_delta)',
    description:
      'A citations_delta and a delta of a type nobody knows yet inside a text block are skipped; the text comes out whole.',
    level: 'should',
    basis: 'real-api',
    rule: `${TOLERANCE} A delta of a type the spec does not list, inside a block the client knows, is skipped without changing the block's text. A warning.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectTolerated(
        ctx,
        env,
        { kind: 'raw', frames: textWithOtherDeltas(MIXED_MESSAGE) },
        true,
        MIXED_MESSAGE,
        'other delta types inside a text block',
      );
    },
  },
  {
    id: 'messages-client.compat.new-stop-reason',
    clause:
      "Resources: Message response (stop_reason); Events: message_delta (stop reasons beyond the spec's four)",
    description:
      'A stop reason the spec does not list (refusal streamed, pause_turn buffered) is printed as sent.',
    level: 'should',
    basis: 'real-api',
    rule: `${TOLERANCE} A stop reason beyond the spec's four (the real API sends refusal and pause_turn) is passed on as sent, not refused or replaced. A warning.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const text: Message = { ...MIXED_MESSAGE, content: [MIXED_MESSAGE.content[0]!] };
      const refusal = { ...text, stop_reason: 'refusal' };
      // A streamed half not judged still leaves the buffered half to judge.
      const streamed = await expectTolerated(
        ctx,
        env,
        { kind: 'message', message: refusal },
        true,
        refusal,
        'stop reason refusal, streamed',
        { ...text, stop_reason: 'end_turn' },
      ).then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof NotExercised) return error;
          throw error;
        },
      );
      const paused = { ...text, stop_reason: 'pause_turn' };
      await expectTolerated(
        ctx,
        env,
        { kind: 'message', message: paused },
        false,
        paused,
        'stop reason pause_turn, buffered',
      );
      if (streamed !== undefined) throw streamed;
    },
  },
  {
    id: 'messages-client.compat.usage-counters',
    clause: 'Events: message_delta (usage beyond output_tokens)',
    description:
      'A message_delta whose usage holds more counters than output_tokens (cache and server tool counters, input_tokens) leaves the final usage right.',
    level: 'should',
    basis: 'real-api',
    rule: `${TOLERANCE} More usage counters in message_delta (the real API sends cache and server-tool counters) leave input_tokens and output_tokens of the final message as sent. A warning.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectTolerated(
        ctx,
        env,
        { kind: 'raw', frames: moreUsage(MIXED_MESSAGE) },
        true,
        MIXED_MESSAGE,
        'more usage counters in message_delta',
      );
    },
  },
];
