import { type Check, NotExercised } from '../../../harness/check.js';
import type { Message } from '../../../protocol/messages/index.js';
import type { MessagesServiceCtx } from '../context.js';
import { startInputTokens } from '../frame-rules.js';
import type { BufferedReply, StreamedReply } from '../replies.js';
import { bufferedMessage, contentAgreement, inputTokenAgreement, streamedMessage } from '../reply-rules.js';
import { failOn, type Violation, violation, within } from '../violations.js';
import { NETWORK_BUDGET_MS } from './common.js';

interface Pair {
  readonly label: string;
  readonly buffered: Message;
  readonly streamed: Message;
}

/** The same request asked buffered and streamed, where both replies yield a message. */
async function pairs(ctx: MessagesServiceCtx): Promise<Pair[]> {
  const asked: [string, BufferedReply, StreamedReply][] = [
    ['text request', await ctx.shared.textBuffered(), await ctx.shared.textStreamed()],
    ['tool request', await ctx.shared.toolBuffered(), await ctx.shared.toolStreamed()],
  ];
  const out: Pair[] = [];
  for (const [label, b, s] of asked) {
    const buffered = bufferedMessage(b).message;
    const streamed = streamedMessage(s).message;
    if (buffered && streamed) out.push({ label, buffered, streamed });
  }
  if (out.length === 0) {
    throw new NotExercised(
      'no request got a message both buffered and streamed; see the buffered and stream checks',
    );
  }
  return out;
}

function compare(found: Pair[], rule: (b: Message, s: Message) => Violation[]): Violation[] {
  return found.flatMap((p) => within(p.label, rule(p.buffered, p.streamed)));
}

export const agreementChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.agreement.input-tokens',
    clause: 'What the service does 2',
    description: 'Streamed and buffered replies to the same request carry the same input token usage.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (What the service does 2): buffered and streamed replies carry the same token usage. The input count depends only on the request, so the same request asked both ways must report the same input_tokens. Every messages service.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      failOn(compare(await pairs(ctx), inputTokenAgreement), 'streamed and buffered usage differ');
    },
  },
  {
    id: 'messages-service.agreement.content',
    clause: 'What the service does 2',
    description:
      'Streamed and buffered replies to the same request carry the same model, content, stop reason and output tokens (a real model varies, so this warns).',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec (What the service does 2): a buffered and a streamed reply carry the same final content. The suite can only ask twice, which gives two generations: they agree on a deterministic service (a mock, a gateway in front of one), not always on a real model. A warning.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      failOn(compare(await pairs(ctx), contentAgreement), 'streamed and buffered replies differ');
    },
  },

  {
    id: 'messages-service.agreement.start-input-tokens',
    clause: 'Events: message_start (input_tokens is the input count); What the service does 2',
    description:
      "message_start's usage.input_tokens alone equals the buffered reply's input_tokens for the same request.",
    level: 'must',
    basis: 'spec',
    rule: 'The spec: message_start carries the input count (usage.input_tokens) and usage is the same buffered or streamed. Every messages service reports the full input count in message_start, not only after message_delta.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const asked: [string, BufferedReply, StreamedReply][] = [
        ['text request', await ctx.shared.textBuffered(), await ctx.shared.textStreamed()],
        ['tool request', await ctx.shared.toolBuffered(), await ctx.shared.toolStreamed()],
      ];
      const found: Violation[] = [];
      let compared = 0;
      for (const [label, b, s] of asked) {
        const buffered = bufferedMessage(b).message;
        const start = s.status === 200 ? startInputTokens(s.frames) : undefined;
        if (!buffered || start === undefined) continue;
        compared++;
        if (start !== buffered.usage.input_tokens) {
          found.push(
            violation(
              `${label}, message_start usage.input_tokens`,
              `the buffered reply's ${buffered.usage.input_tokens}`,
              `${start}`,
            ),
          );
        }
      }
      failOn(found, 'message_start must carry the input count');
      if (compared === 0) {
        throw new NotExercised(
          'no request got both a buffered message and a message_start with input_tokens; see the buffered and stream checks',
        );
      }
    },
  },
];
