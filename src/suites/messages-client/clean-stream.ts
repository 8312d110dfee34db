import { CheckFailure, NotExercised } from '../../harness/check.js';
import type { Message } from '../../protocol/messages/index.js';
import type { CaseResult, MessagesClientCtx } from './context.js';
import { expectFinalMessage, printedMessageProblem } from './expect.js';

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

/**
 * What is wrong with a run that should have printed `message`, in terms that do not depend on
 * how the stream was delivered, or undefined when nothing is: the differences from the message,
 * the error kind reported, or that the run broke.
 */
function finalMessageProblem(result: CaseResult, message: Message): string | undefined {
  const { outcome } = result;
  if (outcome.type === 'error') return `it reported an error of kind ${JSON.stringify(outcome.error.kind)}`;
  if (outcome.type === 'broken') return 'it printed no message and reported no error';
  return printedMessageProblem(outcome.value, message)?.says;
}

/**
 * `failure` of a variation of the plain stream of `message` (pings, comments, reads cut
 * anywhere, frames the spec does not list; or `expected`, the message with a value the spec
 * does not list), or NotExercised when the variation did not cause it: the client gets the
 * plain stream wrong in the same way. A client whose every stream is off (a usage count summed
 * wrong) fails messages-client.stream.final-message for it, not every check of a variation it
 * reads right.
 */
export async function failureOfVariation(
  ctx: MessagesClientCtx,
  message: Message,
  result: CaseResult,
  failure: CheckFailure,
  what: string,
  expected: Message = message,
): Promise<Error> {
  if (failure.sharedCause !== undefined) return failure;
  const plain = finalMessageProblem(await ctx.shared.cleanStream(message), message);
  if (plain === undefined || finalMessageProblem(result, expected) !== plain) return failure;
  return new NotExercised(
    `${what}: the client gets the same stream without the variation wrong in the same way (${plain}), so the failure is not the variation's; messages-client.stream.final-message judges the plain stream`,
  );
}
