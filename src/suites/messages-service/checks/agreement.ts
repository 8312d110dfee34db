import { type Check, CheckSkipped } from '../../../harness/check.js';
import type { Message } from '../../../protocol/messages/index.js';
import type { MessagesServiceCtx } from '../context.js';
import type { BufferedReply, StreamedReply } from '../replies.js';
import { bufferedMessage, contentAgreement, inputTokenAgreement, streamedMessage } from '../reply-rules.js';
import { failOn, type Violation, within } from '../violations.js';
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
    throw new CheckSkipped(
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
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      failOn(compare(await pairs(ctx), contentAgreement), 'streamed and buffered replies differ');
    },
  },
];
