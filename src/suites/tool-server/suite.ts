import type { BareStart } from '../../harness/bare-start.js';
import { OPEN_ALLOWANCE_MS } from '../../harness/budget.js';
import type { Check, Suite } from '../../harness/check.js';
import { gatedByRevision } from '../revision-gate.js';
import { startBudgetScale } from '../target-options.js';
import { targetScrubber } from '../target-secrets.js';
import { earlyRequestChecks } from './checks/early-request.js';
import { keepAliveChecks } from './checks/keep-alive.js';
import { leftoverChecks } from './checks/leftovers.js';
import { lifecycleChecks } from './checks/lifecycle.js';
import { malformedChecks } from './checks/malformed.js';
import { notCalledChecks } from './checks/not-called.js';
import { propertyChecks } from './checks/properties.js';
import { sessionModelChecks } from './checks/session-model.js';
import { sseChecks } from './checks/sse.js';
import { stdioChecks } from './checks/stdio.js';
import { streamableHttpChecks } from './checks/streamable-http.js';
import { toolChecks } from './checks/tools.js';
import {
  DEFAULT_REPLY_MS,
  DEFAULT_STARTUP_MS,
  openToolServer,
  type ToolServerCtx,
  type ToolServerSuiteOptions,
} from './context.js';
import { skipShouldOnPrerequisite } from './prerequisite.js';
import { describeTarget, revisionOf, type ToolServerTarget, targetArgs } from './target.js';
import { headerSecrets } from './target-headers.js';

/** The tool-server suite with its own tuning (budgets, property caps). */
export function createToolServerSuite(
  options: ToolServerSuiteOptions = {},
): Suite<ToolServerTarget, ToolServerCtx> {
  return {
    name: 'tool-server',
    description:
      'Speaks the tool-server protocol (JSON-RPC 2.0, MCP 2024-11-05 or the revision of --protocol; 2025-03-26 by default over Streamable HTTP) to a server over stdio, SSE + POST or Streamable HTTP and checks its replies, streams and sessions.',
    // Checks that may break the server (generated arguments, malformed input) run late; the
    // keep-alive check runs last: it judges a stream watched since the suite opened.
    checks: gatedByRevision(
      [
        ...lifecycleChecks,
        ...earlyRequestChecks,
        ...toolChecks,
        ...stdioChecks,
        ...sseChecks,
        ...streamableHttpChecks,
        ...sessionModelChecks,
        ...propertyChecks,
        ...malformedChecks,
        ...keepAliveChecks,
        // After every check that calls tools: it names what they called.
        ...notCalledChecks,
        // After every other: it judges what every stdio session of the run left running.
        ...leftoverChecks,
      ].map(skipShouldOnPrerequisite),
      (ctx) => revisionOf(ctx.target),
    ).map(closingItsSessions),
    describeTarget,
    targetArgs,
    scrubber: (target) =>
      targetScrubber(
        target.kind === 'stdio'
          ? { commands: [target.command] }
          : { commands: [target.start], urls: [target.url] },
        headerSecrets(target),
      ),
    // Over stdio every session is a new process, each allowed --start-timeout before its first reply.
    budgetScale: (target) =>
      target.kind === 'stdio' && target.startTimeoutMs !== undefined
        ? startBudgetScale(
            (options.replyMs ?? DEFAULT_REPLY_MS) + target.startTimeoutMs,
            (options.replyMs ?? DEFAULT_REPLY_MS) + (options.startupMs ?? DEFAULT_STARTUP_MS),
          )
        : 1,
    // With --start, opening waits up to --start-timeout for the server before the usual allowance.
    openMs: (target) =>
      target.kind !== 'stdio' && target.start !== undefined && target.startTimeoutMs !== undefined
        ? target.startTimeoutMs + OPEN_ALLOWANCE_MS
        : undefined,
    open: (target, env) => openToolServer(target, options, env.jobs ?? 1, env.checks),
    bareStart: stdioBareStart,
    startsAhead: true,
  };
}

export const toolServerSuite = createToolServerSuite();

/** The check, with the sessions it opens closed when it ends (session-owners.ts). */
function closingItsSessions(check: Check<ToolServerCtx>): Check<ToolServerCtx> {
  return { ...check, run: (ctx, env) => ctx.ownSessions(check.id, env.signal, () => check.run(ctx, env)) };
}

/**
 * Over stdio every session is a server process: started with stdin closed at once, a
 * conforming server exits (spec: it exits when its input ends). Over SSE and Streamable HTTP
 * the suite starts no process per case.
 */
function stdioBareStart(target: ToolServerTarget): BareStart | undefined {
  return target.kind === 'stdio' ? { what: 'server', command: target.command, env: process.env } : undefined;
}
