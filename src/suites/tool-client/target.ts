import { UsageError } from '../../harness/errors.js';
import {
  defaultRevisionFor,
  type ProtocolRevision,
  transportRevisionMismatch,
} from '../../protocol/mcp/index.js';
import { redactCommand } from '../../recording/tools/redact-target.js';
import type { TargetOptionSpec } from '../registry.js';
import {
  clientStartTimeoutOption,
  PROTOCOL_TARGET_OPTION,
  parseStartTimeout,
  protocolArgs,
  protocolOption,
  startTimeoutArgs,
} from '../target-options.js';

/** How the harness reaches a tool client: a shell command (the target contract in the README, tool-client). */
export interface ToolClientTarget {
  /** Run by `sh -c` once per case; `{"tool","arguments"}` on stdin. */
  readonly client: string;
  /**
   * `--protocol`: the MCP revision the mock servers speak and the checks judge by (absent: each
   * transport's default, defaultRevisionFor: 2024-11-05 on stdio and SSE, 2025-03-26 on http).
   */
  readonly protocol?: ProtocolRevision;
  /**
   * The transports the client is run over (default DEFAULT_TOOL_TRANSPORTS, the spec's two);
   * the checks of the others are skipped as not applicable.
   */
  readonly transports?: readonly ToolTransport[];
  /** `--start-timeout`: how long a run may take to first reach its case's mock, when longer than the case's budget. */
  readonly startTimeoutMs?: number;
}

/** The revision a run's mock servers speak over `transport`: `--protocol`, else the transport's default. */
export function revisionOf(target: ToolClientTarget, transport: ToolTransport): ProtocolRevision {
  return target.protocol ?? defaultRevisionFor(transport);
}

/** Why the target's `--protocol` cannot be spoken over one of its transports, or undefined. */
export function revisionMismatchOf(target: ToolClientTarget): string | undefined {
  if (target.protocol === undefined) return undefined;
  for (const t of transportsOf(target)) {
    const why = transportRevisionMismatch(t, target.protocol);
    if (why !== undefined) return `--transports ${t} with --protocol ${target.protocol}: ${why}`;
  }
  return undefined;
}

/** stdio and SSE are the spec's (MCP 2024-11-05); `http` is Streamable HTTP (MCP 2025-03-26 and later). */
export type ToolTransport = 'stdio' | 'sse' | 'http';
export const TOOL_TRANSPORTS: readonly ToolTransport[] = ['stdio', 'sse', 'http'];
/** What a client is run over unless told: the spec's transports. Streamable HTTP is asked for. */
export const DEFAULT_TOOL_TRANSPORTS: readonly ToolTransport[] = ['stdio', 'sse'];

/** The transports a target is run over. */
export function transportsOf(target: ToolClientTarget): readonly ToolTransport[] {
  return target.transports ?? DEFAULT_TOOL_TRANSPORTS;
}

/** Variables the harness sets for the client; inherited values of them are removed first. */
const OWN_VARIABLES = ['WIRECHECK_TRANSPORT', 'WIRECHECK_SERVER_CMD', 'WIRECHECK_SERVER_URL'];

/**
 * The environment of one client run: wirecheck's own, plus WIRECHECK_TRANSPORT and either
 * WIRECHECK_SERVER_CMD (stdio) or WIRECHECK_SERVER_URL (sse: the stream URL; http: the
 * Streamable HTTP endpoint URL).
 */
export function toolClientEnv(
  base: Readonly<Record<string, string | undefined>>,
  server: { transport: 'stdio'; command: string } | { transport: 'sse' | 'http'; url: string },
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(base)) if (!OWN_VARIABLES.includes(name)) env[name] = value;
  env.WIRECHECK_TRANSPORT = server.transport;
  if (server.transport === 'stdio') env.WIRECHECK_SERVER_CMD = server.command;
  else env.WIRECHECK_SERVER_URL = server.url;
  return env;
}

/**
 * Spelled as messages-client spells it: the CLI registers one `--client` for both suites
 * (and shows the description of the first suite registered).
 */
/** A case's budget for the client command (`caseTimeoutMs`), counted from its first contact with the mock. */
export const CASE_TIMEOUT_MS = 15_000;

export const TOOL_CLIENT_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  {
    flags: '--client <cmd>',
    description:
      'tool client command, run by sh -c once per case: {"tool","arguments"} JSON on stdin, the tools/call result (or error) JSON on stdout',
  },
  PROTOCOL_TARGET_OPTION,
  {
    flags: '--transports <list>',
    description:
      'transports to run the client over, comma-separated: stdio, sse, http (Streamable HTTP, MCP 2025-03-26 and later); default stdio,sse',
  },
  clientStartTimeoutOption(CASE_TIMEOUT_MS),
];

/** `stdio,sse,http` as a list; a sentence for the user when a name is not a transport. */
export function parseToolTransports(text: string): ToolTransport[] | string {
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const wrong = names.find((n) => !(TOOL_TRANSPORTS as readonly string[]).includes(n));
  if (names.length === 0 || wrong !== undefined) {
    return `--transports takes a comma-separated list of ${TOOL_TRANSPORTS.join(', ')}, got ${JSON.stringify(text)}`;
  }
  return TOOL_TRANSPORTS.filter((t) => names.includes(t));
}

export function toolClientTargetFromOptions(opts: Record<string, unknown>): ToolClientTarget {
  const { client, transports } = opts;
  if (typeof client !== 'string' || client.trim() === '') {
    throw new UsageError('the tool-client suite needs --client "<command>"');
  }
  const protocol = protocolOption(opts);
  const startTimeoutMs = parseStartTimeout(opts.startTimeout);
  const chosen = {
    ...(protocol === undefined ? {} : { protocol }),
    ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }),
  };
  let target: ToolClientTarget = { client, ...chosen };
  if (transports !== undefined) {
    const parsed = parseToolTransports(String(transports));
    if (typeof parsed === 'string') throw new UsageError(parsed);
    target = { ...target, transports: parsed };
  }
  const mismatch = revisionMismatchOf(target);
  if (mismatch !== undefined) throw new UsageError(mismatch);
  return target;
}

/** The command as reports show it: the credentials written into it redacted (target-secrets.ts). */
export function describeTarget(target: ToolClientTarget): string {
  const client = redactCommand(target.client);
  const overHttp = target.protocol === undefined && transportsOf(target).includes('http');
  const notes = [
    ...(target.protocol === undefined ? [] : [`MCP ${target.protocol}`]),
    ...(overHttp ? [`MCP ${defaultRevisionFor('http')} over http`] : []),
    ...(target.transports === undefined ? [] : [`over ${target.transports.join(', ')}`]),
    ...(target.startTimeoutMs === undefined ? [] : [`--start-timeout ${target.startTimeoutMs / 1000}`]),
  ];
  return notes.length === 0 ? client : `${client} (${notes.join('; ')})`;
}

export function targetArgs(target: ToolClientTarget): string[] {
  return [
    '--client',
    redactCommand(target.client),
    ...protocolArgs(target.protocol),
    ...(target.transports === undefined ? [] : ['--transports', target.transports.join(',')]),
    ...startTimeoutArgs(target.startTimeoutMs),
  ];
}
