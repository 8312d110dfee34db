import type { Suite } from '../../harness/check.js';
import { KEEP_CLIENT_WARM } from '../../warm/advice.js';
import { startBudgetScale } from '../target-options.js';
import { targetScrubber } from '../target-secrets.js';
import { bufferedChecks } from './checks/buffered.js';
import { errorChecks } from './checks/errors.js';
import { forwardCompatChecks } from './checks/forward-compat.js';
import { leftoverChecks } from './checks/leftovers.js';
import { requestChecks } from './checks/request.js';
import { streamChecks } from './checks/stream.js';
import { streamErrorChecks } from './checks/stream-errors.js';
import { type MessagesClientCtx, type MessagesClientSuiteOptions, openMessagesClient } from './context.js';
import {
  CASE_TIMEOUT_MS,
  clientEnv,
  describeTarget,
  type MessagesClientTarget,
  REFUSED_BASE_URL,
  targetArgs,
} from './target.js';

/** The messages-client suite with its own tuning (property caps, per-run budget). */
export function createMessagesClientSuite(
  options: MessagesClientSuiteOptions = {},
): Suite<MessagesClientTarget, MessagesClientCtx> {
  return {
    name: 'messages-client',
    concurrent: true,
    description:
      'Runs a messages client command against a mock messages service and checks what it sent and printed.',
    checks: [
      ...requestChecks,
      ...bufferedChecks,
      ...streamChecks,
      ...streamErrorChecks,
      ...errorChecks,
      ...forwardCompatChecks,
      // Last: it judges what every case of the run left running.
      ...leftoverChecks,
    ],
    // Its waiting checks (retries after 429 and 5xx) judge only that a retry came late enough.
    waitsAtOnce: errorChecks.filter((c) => c.schedule === 'waits').length,
    describeTarget,
    targetArgs,
    scrubber: (target) => targetScrubber({ commands: [target.client] }),
    budgetScale: (target) =>
      startBudgetScale(target.startTimeoutMs, options.caseTimeoutMs ?? CASE_TIMEOUT_MS),
    open: (target, env) => openMessagesClient(target, env.seed, options),
    // Empty stdin and a base URL where nothing listens: the client starts, finds no request, exits.
    bareStart: (target) => ({
      what: 'client',
      command: target.client,
      fasterStart: KEEP_CLIENT_WARM,
      env: clientEnv(options.baseEnv ?? process.env, { baseUrl: REFUSED_BASE_URL, apiKey: 'wc-bare-start' }),
    }),
  };
}

export const messagesClientSuite = createMessagesClientSuite();
