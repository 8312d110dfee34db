import { randomBytes } from 'node:crypto';
import { scriptedModel, startMockMessagesService } from '../../mocks/messages/index.js';
import type { SuiteEntry } from '../registry.js';
import { messagesServiceSuite } from './suite.js';
import { MESSAGES_SERVICE_TARGET_OPTIONS, messagesServiceTargetFromOptions } from './target.js';

/** Variable through which `wirecheck all` hands the reference mock's key to the suite. */
export const REFERENCE_KEY_ENV = 'WIRECHECK_REFERENCE_API_KEY';

/** The suite as the CLI registers it; its reference is the mock service playing a model that uses bash. */
export const messagesServiceSuiteEntry: SuiteEntry = {
  suite: messagesServiceSuite,
  targetOptions: MESSAGES_SERVICE_TARGET_OPTIONS,
  targetFromOptions: messagesServiceTargetFromOptions,
  async reference() {
    const apiKey = `wc-ref-${randomBytes(8).toString('hex')}`;
    process.env[REFERENCE_KEY_ENV] = apiKey;
    const service = await startMockMessagesService({ scenario: scriptedModel('bash'), apiKey });
    return { target: { baseUrl: service.url, apiKeyEnv: REFERENCE_KEY_ENV }, close: () => service.close() };
  },
};
