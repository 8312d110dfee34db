import type { Check } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import { arbMessage } from '../../arbitraries/messages.js';
import { always, type MessagesClientCtx } from '../context.js';
import { expectFinalMessage, expectStreamFlag } from '../expect.js';
import { MIXED_MESSAGE } from '../messages.js';
import { requestFor } from '../requests.js';
import { CASE_BUDGET_MS, PROPERTY_BUDGET_MS, SHRINK_RUNS } from './common.js';

async function expectBufferedMessage(
  ctx: MessagesClientCtx,
  signal: AbortSignal,
  message: typeof MIXED_MESSAGE,
  what: string,
): Promise<void> {
  const result = await ctx.runCase({
    scenario: always({ kind: 'message', message }),
    body: requestFor(message, false),
    signal,
  });
  expectStreamFlag(result, false, what);
  expectFinalMessage(result, message, what);
}

export const bufferedChecks: Check<MessagesClientCtx>[] = [
  {
    id: 'messages-client.buffered.final-message',
    clause: 'What the service does 2; Message response (buffered)',
    description: 'A buffered reply is printed as exactly the message the service sent.',
    level: 'must',
    basis: 'contract',
    rule: 'The target contract: on success the client prints the final message in the buffered response shape; the spec (What the service does 2) says that is the message the service sent. Every messages client; fields it adds are tolerated, blocks of types the spec does not describe may be kept or dropped.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectBufferedMessage(ctx, env.signal, MIXED_MESSAGE, 'buffered reply');
    },
  },
  {
    id: 'messages-client.buffered.generated-messages',
    clause: 'What the service does 2; Message response (buffered)',
    description: 'Generated buffered replies (multi-byte text, tool input of any JSON) are printed exactly.',
    level: 'must',
    basis: 'contract',
    rule: 'The target contract: on success the client prints the final message in the buffered response shape, which is the message the service sent (What the service does 2), whatever text and tool input it holds. Every messages client.',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await checkProperty(
        env,
        arbMessage(),
        (message) => expectBufferedMessage(ctx, env.signal, message, 'generated buffered reply'),
        { runs: ctx.commandRuns(env), maxShrinkRuns: SHRINK_RUNS },
      );
    },
  },
];
