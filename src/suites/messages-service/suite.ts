import type { Suite } from '../../harness/check.js';
import { givenHeaderSecrets } from '../../recording/redact.js';
import { targetScrubber } from '../target-secrets.js';
import { abortChecks } from './checks/abort.js';
import { agreementChecks } from './checks/agreement.js';
import { authChecks } from './checks/auth.js';
import { bodyChecks } from './checks/bodies.js';
import { bufferedChecks } from './checks/buffered.js';
import { httpChecks } from './checks/http.js';
import { streamChecks } from './checks/stream.js';
import { toolChecks } from './checks/tools.js';
import { type MessagesServiceCtx, type MessagesServiceSuiteOptions, openMessagesService } from './context.js';
import { describeTarget, type MessagesServiceTarget, resolveTarget, targetArgs } from './target.js';

/** The messages-service suite with its own tuning (property caps, request budget). */
export function createMessagesServiceSuite(
  options: MessagesServiceSuiteOptions = {},
): Suite<MessagesServiceTarget, MessagesServiceCtx> {
  return {
    name: 'messages-service',
    description:
      'Sends real requests to a messages service (mock, gateway or the real API) and checks replies and streams.',
    // Every check sends requests of its own (the replies several judge are asked once, shared
    // as promises), so checks may run side by side; the abort check runs last (scheduled so):
    // a service it breaks must not take the other checks down with it.
    concurrent: true,
    checks: [
      ...httpChecks,
      ...bufferedChecks,
      ...streamChecks,
      ...agreementChecks,
      ...toolChecks,
      ...authChecks,
      ...bodyChecks,
      ...abortChecks,
    ],
    describeTarget,
    targetArgs,
    // The key is sent as x-api-key: a service may quote it back (a 401 naming the key it refused).
    scrubber: (target) =>
      targetScrubber({ urls: [target.baseUrl] }, [
        ...givenHeaderSecrets(target.headers ?? []),
        ...apiKeyOf(target),
      ]),
    open: (target) => openMessagesService(target, options),
  };
}

export const messagesServiceSuite = createMessagesServiceSuite();

/** The value of the key's environment variable, when set: a secret no report may show. */
function apiKeyOf(target: MessagesServiceTarget): string[] {
  const key = process.env[resolveTarget(target).apiKeyEnv];
  return key === undefined || key === '' ? [] : [key];
}
