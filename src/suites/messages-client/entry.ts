import { shellQuote } from '../../harness/run-suite.js';
import { WIRECHECK_BIN } from '../../package-root.js';
import type { SuiteEntry } from '../registry.js';
import { messagesClientSuite } from './suite.js';
import {
  MESSAGES_CLIENT_TARGET_OPTIONS,
  type MessagesClientTarget,
  messagesClientTargetFromOptions,
} from './target.js';

/**
 * The reference client as a target command: `node bin/wirecheck.js messages-client`.
 */
export function referenceClientCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(WIRECHECK_BIN)} messages-client`;
}

/** The suite as the CLI registers it. */
export const messagesClientSuiteEntry: SuiteEntry = {
  suite: messagesClientSuite,
  targetOptions: MESSAGES_CLIENT_TARGET_OPTIONS,
  targetFromOptions: messagesClientTargetFromOptions,
  async reference() {
    const target: MessagesClientTarget = { client: referenceClientCommand() };
    return { target, close: async () => {} };
  },
};
