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

/** Longest `--start-timeout` taken (seconds): a start past ten minutes is not a start. */
const MAX_START_TIMEOUT_S = 600;

/** `--start-timeout` as given, in ms, or undefined when absent. */
export function parseStartTimeout(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const seconds = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_START_TIMEOUT_S)) {
    throw new UsageError(
      `--start-timeout takes a number of seconds above 0 and at most ${MAX_START_TIMEOUT_S}, got ${JSON.stringify(value)}`,
    );
  }
  return Math.round(seconds * 1000);
}

/** The reproduce line's `--start-timeout` argument: none when absent. */
export function startTimeoutArgs(ms: number | undefined): string[] {
  return ms === undefined ? [] : ['--start-timeout', String(ms / 1000)];
}

/** What a user whose client only starts slowly (a JVM, npx, a container) can do, said when a run timed out before reaching its mock. */
export const CLIENT_SLOW_START_HINT =
  'a command that takes longer to start (a JVM, npx fetching a package, a container) can be given more time with --start-timeout SECONDS';

/**
 * `--start-timeout` of a suite that runs a client command once per case against a mock: how
 * long the command may take to reach the case's mock, when longer than the case's budget.
 */
export function clientStartTimeoutOption(caseBudgetMs: number): { flags: string; description: string } {
  return {
    flags: '--start-timeout <seconds>',
    description: `how long the command may take to first reach the case's mock, for a client that is slow to start (a JVM, npx, a container); the case's budget (${caseBudgetMs / 1000} s) then counts from that contact. Default and least: the case's budget`,
  };
}

/**
 * A client suite's `budgetScale` (harness): with `--start-timeout` longer than the case's
 * budget, a case may take that much longer, so a check's budget, sized in cases, grows by
 * the ratio of the two; 1 without it.
 */
export function startBudgetScale(startTimeoutMs: number | undefined, caseBudgetMs: number): number {
  return startTimeoutMs === undefined ? 1 : Math.max(1, startTimeoutMs / caseBudgetMs);
}
