import { shellQuote } from '../../harness/run-suite.js';
import { WIRECHECK_BIN } from '../../package-root.js';
import type { SuiteEntry } from '../registry.js';
import { toolClientSuite } from './suite.js';
import {
  TOOL_CLIENT_TARGET_OPTIONS,
  TOOL_TRANSPORTS,
  type ToolClientTarget,
  toolClientTargetFromOptions,
} from './target.js';

/**
 * The reference tool client as a target command: `node bin/wirecheck.js tool-client`.
 */
export function referenceToolClientCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(WIRECHECK_BIN)} tool-client`;
}

/** The suite as the CLI registers it. */
export const toolClientSuiteEntry: SuiteEntry = {
  suite: toolClientSuite,
  targetOptions: TOOL_CLIENT_TARGET_OPTIONS,
  targetFromOptions: toolClientTargetFromOptions,
  async reference() {
    // The reference speaks every transport: `wirecheck all` runs it over all three.
    const target: ToolClientTarget = { client: referenceToolClientCommand(), transports: TOOL_TRANSPORTS };
    return { target, close: async () => {} };
  },
};
