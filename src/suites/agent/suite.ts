import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareStart } from '../../harness/bare-start.js';
import type { Suite } from '../../harness/check.js';
import { REFUSED_BASE_URL } from '../messages-client/target.js';
import { startBudgetScale } from '../target-options.js';
import { targetScrubber } from '../target-secrets.js';
import { authChecks } from './checks/auth.js';
import { breakerChecks } from './checks/breaker.js';
import { capChecks } from './checks/cap.js';
import { leftoverChecks } from './checks/leftovers.js';
import { loopChecks } from './checks/loop.js';
import { resultChecks } from './checks/results.js';
import { retryChecks } from './checks/retries.js';
import { type AgentCtx, type AgentSuiteOptions, openAgent } from './context.js';
import { CASE_TIMEOUT_MS } from './expect.js';
import { type AgentTarget, agentEnv, describeTarget, targetArgs } from './target.js';

/** The agent suite with its own tuning (case budget, base environment). */
export function createAgentSuite(options: AgentSuiteOptions = {}): Suite<AgentTarget, AgentCtx> {
  return {
    name: 'agent',
    concurrent: true,
    description:
      'Runs an agent command against a mock messages service scripted as a model that calls the bash tool, and checks the conversation it sent, its turn cap and its circuit breaker.',
    // leftoverChecks last: it judges what every case of the run left running.
    checks: [
      ...loopChecks,
      ...retryChecks,
      ...authChecks,
      ...resultChecks,
      ...capChecks,
      ...breakerChecks,
      ...leftoverChecks,
    ],
    describeTarget,
    targetArgs,
    scrubber: (target) => targetScrubber({ commands: [target.agent] }),
    budgetScale: (target) =>
      startBudgetScale(target.startTimeoutMs, options.caseTimeoutMs ?? CASE_TIMEOUT_MS),
    open: (target, env) => openAgent(target, env, options),
    bareStart: (target) => bareAgentStart(target, options),
  };
}

export const agentSuite = createAgentSuite();

/** The agent started with an empty prompt and nothing listening at its base URL: it starts and exits. */
function bareAgentStart(target: AgentTarget, options: AgentSuiteOptions): BareStart {
  const dir = mkdtempSync(join(tmpdir(), 'wirecheck-agent-bare-'));
  return {
    what: 'agent',
    command: target.agent,
    env: agentEnv(options.baseEnv ?? process.env, {
      baseUrl: REFUSED_BASE_URL,
      apiKey: 'wc-bare-start',
      maxTurns: 1,
      workdir: join(dir, 'workdir'),
    }),
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}
