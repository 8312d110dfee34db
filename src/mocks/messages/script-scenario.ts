import type { MessageRequest } from '../../protocol/messages/index.js';
import { type Reply, type ReplyJson, replyOfJson, type Scenario } from './reply.js';

/**
 * Serves `replies` in order, one per valid request. Past the end every request gets a
 * 500 api_error saying the script is exhausted, so a client that sends more requests
 * than the script expects fails loudly instead of looping.
 */
export function scriptScenario(replies: readonly Reply[]): Scenario {
  return scriptOf(replies.length, (i) => replies[i]!);
}

/** `scriptScenario` over JSON replies (message drafts completed per request). */
export function scriptScenarioOfJson(replies: readonly ReplyJson[]): Scenario {
  return scriptOf(replies.length, (i, request, requestIndex) =>
    replyOfJson(replies[i]!, request, requestIndex),
  );
}

function scriptOf(
  length: number,
  replyAt: (i: number, request: MessageRequest, requestIndex: number) => Reply,
): Scenario {
  let next = 0;
  return (request, { requestIndex }) => {
    const i = next++;
    if (i < length) return replyAt(i, request, requestIndex);
    return {
      kind: 'error',
      status: 500,
      errorType: 'api_error',
      message: `script exhausted: all ${length} scripted replies were served; this is request ${i + 1} to the script (service request index ${requestIndex})`,
    };
  };
}
