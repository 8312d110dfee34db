import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../harness/run-suite.js';
import type { SuiteEntry } from '../registry.js';
import { messagesClientSuite } from './suite.js';
import {
  MESSAGES_CLIENT_TARGET_OPTIONS,
  type MessagesClientTarget,
  messagesClientTargetFromOptions,
} from './target.js';

/**
 * The reference client as a target command: `node bin/wirecheck.js messages-client`
 * (this file sits two folders below src/ or dist/, so the bin is three folders up).
 */
export function referenceClientCommand(): string {
  const bin = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(bin)} messages-client`;
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
