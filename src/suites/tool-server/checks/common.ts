import { CheckFailure } from '../../../harness/check.js';
import type { JsonRpcResponse } from '../../../protocol/jsonrpc/index.js';
import type { Tool } from '../../../protocol/mcp/index.js';
import type { Channel } from '../channel.js';
import type { ToolServerCtx } from '../context.js';
import { rpcEvidence } from '../evidence.js';
import { PrerequisiteFailed } from '../prerequisite.js';

/** Spec sections the checks cite. */
export const CLAUSES = {
  objects: 'Tool-server objects',
  sseTransport: 'Endpoints: Tool server, SSE transport',
  stdioTransport: 'Endpoints: Tool server, stdio transport',
  session: 'States and transitions: SSE tool-server session',
  sseEvents: 'Events: Tool-server SSE events',
  errors: 'Errors',
  limits: 'Limits',
  versioning: 'Versioning',
  jsonrpc: 'JSON-RPC 2.0 (spec "Tool-server objects": JSON-RPC request)',
} as const;

/** Per-check budget of the ordinary checks (several replies of replyMs each). */
export const CHECK_MS = 30_000;

/** A CheckFailure carrying the messages of the given sessions. */
export function failWith(
  message: string,
  expected: string,
  actual: string,
  channels: readonly Channel[],
  markText?: string,
): CheckFailure {
  // A stdio server process that died explains every failure seen on it: reports print it once
  // (an exit with status 0 is an ending, as after the end of its input, not a cause).
  const exited = channels
    .filter((c) => c.transport === 'stdio')
    .map((c) => c.gone())
    .find((why) => why !== undefined && !/exited with code 0\b/.test(why));
  return new CheckFailure(
    message,
    expected,
    actual,
    rpcEvidence(message.slice(0, 120), channels, markText),
    exited === undefined ? {} : { sharedCause: exited },
  );
}

/** The reply's text, short. */
export function brief(reply: JsonRpcResponse | undefined): string {
  if (reply === undefined) return 'nothing';
  const s = JSON.stringify(reply);
  return s.length > 600 ? `${s.slice(0, 600)}...` : s;
}

/**
 * The tools a check may call when it can do without one: none when tools/list could not be
 * read. The list's own checks report that cause; a check of the transport is not failed for it.
 */
export async function toolsIfListed(ctx: ToolServerCtx): Promise<readonly Tool[]> {
  try {
    return (await ctx.policy()).allowed;
  } catch (e) {
    if (e instanceof PrerequisiteFailed) return [];
    throw e;
  }
}
