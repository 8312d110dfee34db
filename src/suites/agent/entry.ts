import { shellQuote } from '../../harness/run-suite.js';
import { WIRECHECK_BIN } from '../../package-root.js';
import type { RunningReference, SuiteEntry } from '../registry.js';
import { type IsolationProbe, referenceIsolation } from '../runner/reference-isolation.js';
import { agentSuite } from './suite.js';
import { AGENT_TARGET_OPTIONS, type AgentTarget, agentTargetFromOptions } from './target.js';

/**
 * The reference agent as a target command: `node bin/wirecheck.js agent`.
 */
export function referenceAgentCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(WIRECHECK_BIN)} agent`;
}

/** The suite as the CLI registers it. */
export const agentSuiteEntry: SuiteEntry = {
  suite: agentSuite,
  targetOptions: AGENT_TARGET_OPTIONS,
  targetFromOptions: agentTargetFromOptions,
  reference: () => startReferenceAgent(),
};

/** The reference agent for `wirecheck all`: `--isolation none`, with a note, where no isolation works here. */
export async function startReferenceAgent(probe?: IsolationProbe): Promise<RunningReference> {
  const isolation = await referenceIsolation(probe);
  const target: AgentTarget = { agent: [referenceAgentCommand(), ...isolation.args].join(' ') };
  return { target, close: async () => {}, ...(isolation.note === undefined ? {} : { note: isolation.note }) };
}
