import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../harness/run-suite.js';
import type { SuiteEntry } from '../registry.js';
import { agentSuite } from './suite.js';
import { AGENT_TARGET_OPTIONS, type AgentTarget, agentTargetFromOptions } from './target.js';

/**
 * The reference agent as a target command: `node bin/wirecheck.js agent` (this file sits
 * two folders below src/ or dist/, so the bin is three folders up).
 */
export function referenceAgentCommand(): string {
  const bin = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(bin)} agent`;
}

/** The suite as the CLI registers it. */
export const agentSuiteEntry: SuiteEntry = {
  suite: agentSuite,
  targetOptions: AGENT_TARGET_OPTIONS,
  targetFromOptions: agentTargetFromOptions,
  async reference() {
    const target: AgentTarget = { agent: referenceAgentCommand() };
    return { target, close: async () => {} };
  },
};
