import { UsageError } from '../../harness/errors.js';
import { DEFAULT_REVISION, type ProtocolRevision } from '../../protocol/mcp/index.js';
import type { TargetOptionSpec } from '../registry.js';
import { PROTOCOL_TARGET_OPTION, protocolArgs, protocolOption } from '../target-options.js';

/** How the harness reaches a tool client: a shell command (the target contract in the README, tool-client). */
export interface ToolClientTarget {
  /** Run by `sh -c` once per case; `{"tool","arguments"}` on stdin. */
  readonly client: string;
  /** `--protocol`: the MCP revision the mock servers speak and the checks judge by (absent: 2024-11-05). */
  readonly protocol?: ProtocolRevision;
}

/** The revision a run's mock servers speak. */
export function revisionOf(target: ToolClientTarget): ProtocolRevision {
  return target.protocol ?? DEFAULT_REVISION;
}

export type ToolTransport = 'stdio' | 'sse';
export const TOOL_TRANSPORTS: readonly ToolTransport[] = ['stdio', 'sse'];

/** Variables the harness sets for the client; inherited values of them are removed first. */
const OWN_VARIABLES = ['WIRECHECK_TRANSPORT', 'WIRECHECK_SERVER_CMD', 'WIRECHECK_SERVER_URL'];

/**
 * The environment of one client run: wirecheck's own, plus WIRECHECK_TRANSPORT and either
 * WIRECHECK_SERVER_CMD (stdio) or WIRECHECK_SERVER_URL (sse).
 */
export function toolClientEnv(
  base: Readonly<Record<string, string | undefined>>,
  server: { transport: 'stdio'; command: string } | { transport: 'sse'; url: string },
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
export const TOOL_CLIENT_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  {
    flags: '--client <cmd>',
    description:
      'tool client command, run by sh -c once per case: {"tool","arguments"} JSON on stdin, the tools/call result (or error) JSON on stdout',
  },
  PROTOCOL_TARGET_OPTION,
];

export function toolClientTargetFromOptions(opts: Record<string, unknown>): ToolClientTarget {
  const { client } = opts;
  if (typeof client !== 'string' || client.trim() === '') {
    throw new UsageError('the tool-client suite needs --client "<command>"');
  }
  const protocol = protocolOption(opts);
  return protocol === undefined ? { client } : { client, protocol };
}

export function describeTarget(target: ToolClientTarget): string {
  return target.protocol === undefined ? target.client : `${target.client} (MCP ${target.protocol})`;
}

export function targetArgs(target: ToolClientTarget): string[] {
  return ['--client', target.client, ...protocolArgs(target.protocol)];
}
