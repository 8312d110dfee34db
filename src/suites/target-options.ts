import { UsageError } from '../harness/errors.js';
import {
  DEFAULT_REVISION,
  defaultRevisionFor,
  isProtocolRevision,
  PROTOCOL_REVISIONS,
  type ProtocolRevision,
} from '../protocol/mcp/index.js';

// Helpers for a registry entry's targetFromOptions. Kept apart from registry.ts, which
// imports every suite: a suite importing the registry back would make a cycle.

/** A required string target option: a UsageError names the flag when it is absent or empty. */
export function requiredStringOption(opts: Record<string, unknown>, key: string, flag: string): string {
  const value = opts[key];
  if (typeof value !== 'string' || value === '') throw new UsageError(`this suite needs ${flag}`);
  return value;
}

/** An optional string target option, or `fallback` when it is absent. */
export function stringOption(opts: Record<string, unknown>, key: string, fallback: string): string;
export function stringOption(opts: Record<string, unknown>, key: string): string | undefined;
export function stringOption(
  opts: Record<string, unknown>,
  key: string,
  fallback?: string,
): string | undefined {
  const value = opts[key];
  return typeof value === 'string' ? value : fallback;
}

/** `--protocol`: one MCP revision of the tool suites (target.ts of tool-server and tool-client). */
export const PROTOCOL_TARGET_OPTION = {
  flags: '--protocol <revision>',
  description: `MCP revision to speak and judge by: ${PROTOCOL_REVISIONS.join(', ')} (default ${DEFAULT_REVISION}, the spec's, over stdio and SSE; ${defaultRevisionFor('http')} over Streamable HTTP); checks of other revisions are skipped as not applicable`,
} as const;

/** The `--protocol` value, or undefined when absent; an unknown revision is a usage error naming the known ones. */
export function protocolOption(opts: Record<string, unknown>): ProtocolRevision | undefined {
  const value = opts.protocol;
  if (value === undefined) return undefined;
  if (!isProtocolRevision(value)) {
    throw new UsageError(
      `--protocol ${JSON.stringify(value)} is not an MCP revision wirecheck knows (known: ${PROTOCOL_REVISIONS.join(', ')})`,
    );
  }
  return value;
}

/** The reproduce line's `--protocol` argument: none for the default. */
export function protocolArgs(revision: ProtocolRevision | undefined): string[] {
  return revision === undefined || revision === DEFAULT_REVISION ? [] : ['--protocol', revision];
}
