import { type CheckEnv, CheckFailure } from '../../../harness/check.js';
import type { FaultPlan } from '../../../mocks/messages/index.js';
import type { DeltaSplits, Message } from '../../../protocol/messages/index.js';
import { failureOfVariation } from '../clean-stream.js';
import { always, type CaseResult, type MessagesClientCtx, RETRYING_CASE_MS } from '../context.js';
import { expectFinalMessage, expectStreamFlag } from '../expect.js';
import type { ReadCutPlan } from '../read-cuts.js';
import { requestFor } from '../requests.js';
import { servedFramesEvidence, withServedFrames } from '../served-frames.js';
import { CASE_TIMEOUT_MS } from '../target.js';

/** Budget of a property that runs the client once per run. */
export const PROPERTY_BUDGET_MS = 600_000;
/** Values a failed property still tries while shrinking (each one starts the client). */
export const SHRINK_RUNS = 20;
/** Budget of a check that runs the client a few times. */
export const CASE_BUDGET_MS = 60_000;
/**
 * Budget of a check whose case a client may retry: the case's own budget, which starts when
 * the client first reaches the mock, the start allowed before that and the grace after, twice
 * over for the probe run again when the client printed nothing. A check cut at its budget
 * fails, so it must not end before a case a retrying client is excused from.
 */
export const RETRYING_CHECK_MS = RETRYING_CASE_MS + 2 * (CASE_TIMEOUT_MS + 5_000);

/** How a streamed reply is cut into deltas, shaped by the mock, and cut into reads on the way. */
export interface Delivery {
  readonly splits?: DeltaSplits;
  readonly faults?: FaultPlan;
  readonly readCuts?: ReadCutPlan;
}

/** Run the client on a streamed reply of `message`, delivered as `delivery` says. */
export function runStreamed(
  ctx: MessagesClientCtx,
  env: CheckEnv,
  message: Message,
  delivery: Delivery = {},
): Promise<CaseResult> {
  const { splits, faults, readCuts } = delivery;
  return ctx.runCase({
    scenario: always({ kind: 'message', message, ...(splits && { splits }), ...(faults && { faults }) }),
    body: requestFor(message, true),
    ...(readCuts && { readCuts }),
    signal: env.signal,
  });
}

/** The client streamed `message`, delivered as `delivery` says, and printed exactly it. */
function expectStreamedResult(result: CaseResult, message: Message, delivery: Delivery, what: string): void {
  expectStreamFlag(result, true, what);
  withServedFrames(
    () => expectFinalMessage(result, message, what),
    () => servedFramesEvidence(message, delivery.splits, delivery.faults, result.requests),
  );
}

/** A valid stream of `message`: the client must stream it and print exactly `message`. */
export async function expectStreamedMessage(
  ctx: MessagesClientCtx,
  env: CheckEnv,
  message: Message,
  delivery: Delivery,
  what: string,
): Promise<void> {
  expectStreamedResult(await runStreamed(ctx, env, message, delivery), message, delivery, what);
}

/**
 * A variation of the plain stream of `message` (pings, comments, line endings, reads cut
 * anywhere): the client must print exactly `message`, and a failure it shares with the plain
 * stream is not judged here (failureOfVariation).
 */
export async function expectStreamVariation(
  ctx: MessagesClientCtx,
  env: CheckEnv,
  message: Message,
  delivery: Delivery,
  what: string,
): Promise<void> {
  const result = await runStreamed(ctx, env, message, delivery);
  try {
    expectStreamedResult(result, message, delivery, what);
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    throw await failureOfVariation(ctx, message, result, error, what);
  }
}
