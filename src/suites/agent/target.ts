import { UsageError } from '../../harness/errors.js';
import { redactCommand } from '../../recording/tools/redact-target.js';
import { clientEnv } from '../messages-client/target.js';
import type { TargetOptionSpec } from '../registry.js';
import { clientStartTimeoutOption, parseStartTimeout, startTimeoutArgs } from '../target-options.js';
import { CASE_TIMEOUT_MS } from './expect.js';

/** How the harness reaches an agent: a shell command (the target contract in the README, agent). */
export interface AgentTarget {
  /** Run by `sh -c` once per case; the prompt on stdin. */
  readonly agent: string;
  /** `--start-timeout`: how long a run may take to first reach its case's mock, when longer than the case's budget. */
  readonly startTimeoutMs?: number;
}

/** What one agent run is pointed at. */
export interface AgentRunSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** WIRECHECK_MAX_TURNS; undefined leaves it unset (the agent's own default cap). */
  readonly maxTurns: number | undefined;
  readonly workdir: string;
}

/**
 * The environment of one agent run: as for a messages client (no inherited ANTHROPIC_*,
 * the base URL and key under both names), plus WIRECHECK_MAX_TURNS and WIRECHECK_WORKDIR;
 * inherited values of those two are dropped so that a case decides them.
 */
export function agentEnv(
  base: Readonly<Record<string, string | undefined>>,
  settings: AgentRunSettings,
): Record<string, string | undefined> {
  const env = clientEnv(base, { baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  delete env.WIRECHECK_MAX_TURNS;
  env.WIRECHECK_WORKDIR = settings.workdir;
  if (settings.maxTurns !== undefined) env.WIRECHECK_MAX_TURNS = String(settings.maxTurns);
  return env;
}

export const AGENT_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  {
    flags: '--agent <cmd>',
    description:
      'agent command, run by sh -c once per case: the prompt on stdin, the tool-use loop against the mock (exit 0 done, 3 circuit breaker)',
  },
  clientStartTimeoutOption(CASE_TIMEOUT_MS),
];

/** The target from commander's option values (`--agent` -> `agent`). */
export function agentTargetFromOptions(opts: Record<string, unknown>): AgentTarget {
  const { agent } = opts;
  if (typeof agent !== 'string' || agent.trim() === '') {
    throw new UsageError('the agent suite needs --agent "<command>"');
  }
  const startTimeoutMs = parseStartTimeout(opts.startTimeout);
  return { agent, ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }) };
}

/** The command as reports show it: the credentials written into it redacted (target-secrets.ts). */
export function describeTarget(target: AgentTarget): string {
  const agent = redactCommand(target.agent);
  return target.startTimeoutMs === undefined
    ? agent
    : `${agent} (--start-timeout ${target.startTimeoutMs / 1000})`;
}

export function targetArgs(target: AgentTarget): string[] {
  return ['--agent', redactCommand(target.agent), ...startTimeoutArgs(target.startTimeoutMs)];
}
