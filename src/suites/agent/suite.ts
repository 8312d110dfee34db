import type { Suite } from '../../harness/check.js';
import { breakerChecks } from './checks/breaker.js';
import { capChecks } from './checks/cap.js';
import { leftoverChecks } from './checks/leftovers.js';
import { loopChecks } from './checks/loop.js';
import { resultChecks } from './checks/results.js';
import { type AgentCtx, type AgentSuiteOptions, openAgent } from './context.js';
import { type AgentTarget, describeTarget, targetArgs } from './target.js';

/** The agent suite with its own tuning (case budget, base environment). */
export function createAgentSuite(options: AgentSuiteOptions = {}): Suite<AgentTarget, AgentCtx> {
  return {
    name: 'agent',
    description:
      'Runs an agent command against a mock messages service scripted as a model that calls the bash tool, and checks the conversation it sent, its turn cap and its circuit breaker.',
    // leftoverChecks last: it judges what every case of the run left running.
    checks: [...loopChecks, ...resultChecks, ...capChecks, ...breakerChecks, ...leftoverChecks],
    describeTarget,
    targetArgs,
    open: (target, env) => openAgent(target, env.seed, options, env.signal),
  };
}

export const agentSuite = createAgentSuite();
