import type { CheckEnv } from '../../../harness/check.js';
import type { ToolFaultsInput } from '../../../mocks/tools/index.js';
import { type CaseResult, ECHO_INPUT, type ToolClientCtx } from '../context.js';
import type { ToolTransport } from '../target.js';

/** Budget of a check that runs the client once or twice. */
export const CASE_BUDGET_MS = 45_000;
/** Budget of a property that runs the client once per run. */
export const PROPERTY_BUDGET_MS = 300_000;

/** `tool-client.<transport>.<rest>`. */
export function idOf(transport: ToolTransport, rest: string): string {
  return `tool-client.${transport}.${rest}`;
}

/** The spec's words for a transport, for clauses. */
export function transportClause(transport: ToolTransport): string {
  if (transport === 'http') return 'MCP Streamable HTTP transport (2025-03-26 and later)';
  return transport === 'stdio' ? 'Tool server, stdio transport' : 'Tool server, SSE transport';
}

/** The client's echo call against a fresh mock of `transport` with these faults: the case of most transport checks. */
export function echoWithFaults(
  ctx: ToolClientCtx,
  env: CheckEnv,
  transport: ToolTransport,
  faults: ToolFaultsInput,
): Promise<CaseResult> {
  return ctx.runCase({ transport, scenario: { faults }, input: ECHO_INPUT, signal: env.signal });
}
