import { UsageError } from '../../harness/errors.js';
import { redactCommand } from '../../recording/tools/redact-target.js';
import type { TargetOptionSpec } from '../registry.js';
import { clientStartTimeoutOption, parseStartTimeout, startTimeoutArgs } from '../target-options.js';

/** How the harness reaches a messages client: a shell command (the target contract in the README, messages-client). */
export interface MessagesClientTarget {
  /** Run by `sh -c` once per case; the request body on stdin. */
  readonly client: string;
  /** `--start-timeout`: how long a run may take to first reach its case's mock, when longer than the case's budget. */
  readonly startTimeoutMs?: number;
}

/** A case's budget for the client command (`caseTimeoutMs`), counted from its first contact with the mock. */
export const CASE_TIMEOUT_MS = 20_000;

/** Where a case points the client, and with which key (undefined: both key variables unset). */
export interface ClientEndpoint {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
}

/**
 * The environment of one client run: wirecheck's own, without any `ANTHROPIC_*` variable
 * (the official SDK reads several of them, e.g. a credential chain or custom headers, and
 * they would change what the client sends), plus the base URL and key under both the
 * WIRECHECK_ and the ANTHROPIC_ names.
 */
export function clientEnv(
  base: Readonly<Record<string, string | undefined>>,
  endpoint: ClientEndpoint,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(base)) {
    if (name.startsWith('ANTHROPIC_') || name === 'WIRECHECK_BASE_URL' || name === 'WIRECHECK_API_KEY')
      continue;
    env[name] = value;
  }
  env.WIRECHECK_BASE_URL = endpoint.baseUrl;
  env.ANTHROPIC_BASE_URL = endpoint.baseUrl;
  if (endpoint.apiKey !== undefined) {
    env.WIRECHECK_API_KEY = endpoint.apiKey;
    env.ANTHROPIC_API_KEY = endpoint.apiKey;
  }
  return env;
}

/**
 * A base URL where nothing listens (the discard port of the loopback address), for a start of
 * the target that must reach nothing.
 */
export const REFUSED_BASE_URL = 'http://127.0.0.1:9';

/** A key that is unique to the run, so a check can tell it was read from the environment. */
export function runApiKey(seed: number): string {
  return `wc-test-key-${seed.toString(16).padStart(8, '0')}`;
}

export const MESSAGES_CLIENT_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  {
    flags: '--client <cmd>',
    description:
      'messages client command, run by sh -c once per case: request JSON on stdin, final message (or error) JSON on stdout',
  },
  clientStartTimeoutOption(CASE_TIMEOUT_MS),
];

/** The target from commander's option values (`--client` -> `client`). */
export function messagesClientTargetFromOptions(opts: Record<string, unknown>): MessagesClientTarget {
  const { client } = opts;
  if (typeof client !== 'string' || client.trim() === '') {
    throw new UsageError('the messages-client suite needs --client "<command>"');
  }
  const startTimeoutMs = parseStartTimeout(opts.startTimeout);
  return { client, ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }) };
}

/** The command as reports show it: the credentials written into it redacted (target-secrets.ts). */
export function describeTarget(target: MessagesClientTarget): string {
  const client = redactCommand(target.client);
  return target.startTimeoutMs === undefined
    ? client
    : `${client} (--start-timeout ${target.startTimeoutMs / 1000})`;
}

export function targetArgs(target: MessagesClientTarget): string[] {
  return ['--client', redactCommand(target.client), ...startTimeoutArgs(target.startTimeoutMs)];
}
