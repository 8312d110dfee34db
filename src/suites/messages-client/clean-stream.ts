import { CheckFailure, NotExercised } from '../../harness/check.js';
import type { Message } from '../../protocol/messages/index.js';
import type { MessagesClientCtx } from './context.js';
import { expectFinalMessage } from './expect.js';

/**
 * Throws NotExercised unless the client prints `message` from the same stream without the
 * fault. Called by a check of a stream fault before it passes a client that reported the
 * fault: a client that fails every stream (a reader that chokes on a frame it does not know)
 * "reports" each fault without having met it.
 */
export async function expectCleanStreamHandled(
  ctx: MessagesClientCtx,
  message: Message,
  fault: string,
): Promise<void> {
  const clean = await ctx.shared.cleanStream(message);
  try {
    expectFinalMessage(clean, message, 'the same stream without the fault');
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    throw new NotExercised(
      `the client does not handle the same stream without ${fault} either (${error.message}), so its failure here need not come from the fault`,
    );
  }
}
