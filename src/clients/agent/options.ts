import { z } from 'zod';
import { DEFAULT_MODEL } from '../../protocol/messages/default-model.js';
import { ISOLATION_LEVELS, type IsolationLevel } from '../../runner/command-line.js';
import { DEFAULT_MAX_TURNS } from './loop.js';

/** Default model name of the reference agent (any name works against the mock). */
export const DEFAULT_AGENT_MODEL = DEFAULT_MODEL;
export const DEFAULT_AGENT_MAX_TOKENS = 4096;

/** What the `agent` command accepts on its command line (each overrides its variable). */
export interface AgentFlags {
  maxTurns?: string | number;
  workdir?: string;
  transcript?: string;
  model?: string;
  maxTokens?: string | number;
  stream?: boolean;
  commandTimeout?: string | number;
  isolation?: string;
}

export interface AgentSettings {
  maxTurns: number;
  /** Absent: the command makes a fresh temporary folder. */
  workdir: string | undefined;
  transcript: string | undefined;
  model: string;
  maxTokens: number;
  stream: boolean;
  /** Per-command timeout in seconds for the runner; absent: the runner's default (20 s). */
  commandTimeoutS: number | undefined;
  /** How the runner confines commands: `auto` (isolating levels only) unless named. */
  isolation: IsolationLevel | 'auto';
  maxRetries: number | undefined;
  idleTimeoutMs: number | undefined;
}

/** A setting is invalid: the command exits 2 (usage) naming where it came from. */
export class AgentSettingError extends Error {
  override readonly name = 'AgentSettingError';
}

const positiveInt = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const nonNegativeInt = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const positiveSeconds = z.coerce.number().positive().max(86_400);

type Env = Readonly<Record<string, string | undefined>>;

/** The value of a setting: its flag (named `option` in messages) if given, else variable `name`. */
function pick(
  flag: string | number | undefined,
  env: Env,
  name: string,
  option = 'the option',
): { value: string | undefined; from: string } {
  if (flag !== undefined && String(flag).trim() !== '') return { value: String(flag).trim(), from: option };
  const v = env[name]?.trim();
  return { value: v === '' ? undefined : v, from: name };
}

/** Plain decimal digits only: Number() would also take "0x10", "1e3" and " ". */
const DECIMAL = /^\d+(\.\d+)?$/;

function parsed<T>(
  schema: z.ZodType<T>,
  picked: { value: string | undefined; from: string },
  what: string,
): T | undefined {
  if (picked.value === undefined) return undefined;
  const result = DECIMAL.test(picked.value) ? schema.safeParse(picked.value) : undefined;
  if (!result?.success) {
    throw new AgentSettingError(`${picked.from} must be ${what}, got ${JSON.stringify(picked.value)}`);
  }
  return result.data;
}

/**
 * The agent's settings from its flags and environment (the target contract in the README, agent): WIRECHECK_MAX_TURNS
 * (turn cap, default 10), WIRECHECK_WORKDIR (the runner's working directory),
 * WIRECHECK_TRANSCRIPT (JSON Lines transcript), WIRECHECK_MODEL, WIRECHECK_MAX_TOKENS,
 * WIRECHECK_TIMEOUT_S (per-command timeout), WIRECHECK_MAX_RETRIES and
 * WIRECHECK_IDLE_TIMEOUT_MS (as for the messages client), WIRECHECK_ISOLATION (how commands
 * are confined). Throws AgentSettingError.
 */
export function resolveAgentSettings(flags: AgentFlags, env: Env): AgentSettings {
  const isolation = pick(flags.isolation, env, 'WIRECHECK_ISOLATION', '--isolation');
  const levels: readonly string[] = ['auto', ...ISOLATION_LEVELS];
  if (isolation.value !== undefined && !levels.includes(isolation.value)) {
    throw new AgentSettingError(
      `${isolation.from} must be one of ${levels.join(', ')}, got ${JSON.stringify(isolation.value)}`,
    );
  }
  const maxTurns = parsed(
    positiveInt,
    pick(flags.maxTurns, env, 'WIRECHECK_MAX_TURNS', '--max-turns'),
    'an integer >= 1',
  );
  const maxTokens = parsed(
    positiveInt,
    pick(flags.maxTokens, env, 'WIRECHECK_MAX_TOKENS', '--max-tokens'),
    'an integer >= 1',
  );
  const timeout = parsed(
    positiveSeconds,
    pick(flags.commandTimeout, env, 'WIRECHECK_TIMEOUT_S', '--command-timeout'),
    'a number of seconds in (0, 86400]',
  );
  const retries = parsed(nonNegativeInt, pick(undefined, env, 'WIRECHECK_MAX_RETRIES'), 'an integer >= 0');
  const idle = parsed(positiveInt, pick(undefined, env, 'WIRECHECK_IDLE_TIMEOUT_MS'), 'an integer >= 1');
  return {
    maxTurns: maxTurns ?? DEFAULT_MAX_TURNS,
    workdir: pick(flags.workdir, env, 'WIRECHECK_WORKDIR').value,
    transcript: pick(flags.transcript, env, 'WIRECHECK_TRANSCRIPT').value,
    model: pick(flags.model, env, 'WIRECHECK_MODEL').value ?? DEFAULT_AGENT_MODEL,
    maxTokens: maxTokens ?? DEFAULT_AGENT_MAX_TOKENS,
    stream: flags.stream === true,
    commandTimeoutS: timeout,
    isolation: (isolation.value ?? 'auto') as IsolationLevel | 'auto',
    maxRetries: retries,
    idleTimeoutMs: idle,
  };
}
