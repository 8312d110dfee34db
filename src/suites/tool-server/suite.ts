import type { Suite } from '../../harness/check.js';
import { earlyRequestChecks } from './checks/early-request.js';
import { keepAliveChecks } from './checks/keep-alive.js';
import { lifecycleChecks } from './checks/lifecycle.js';
import { malformedChecks } from './checks/malformed.js';
import { notCalledChecks } from './checks/not-called.js';
import { propertyChecks } from './checks/properties.js';
import { sessionModelChecks } from './checks/session-model.js';
import { sseChecks } from './checks/sse.js';
import { stdioChecks } from './checks/stdio.js';
import { toolChecks } from './checks/tools.js';
import { openToolServer, type ToolServerCtx, type ToolServerSuiteOptions } from './context.js';
import { skipShouldOnPrerequisite } from './prerequisite.js';
import { describeTarget, type ToolServerTarget, targetArgs } from './target.js';

/** The tool-server suite with its own tuning (budgets, property caps). */
export function createToolServerSuite(
  options: ToolServerSuiteOptions = {},
): Suite<ToolServerTarget, ToolServerCtx> {
  return {
    name: 'tool-server',
    description:
      'Speaks the tool-server protocol (JSON-RPC 2.0, MCP 2024-11-05) to a server over stdio or SSE + POST and checks its replies, streams and sessions.',
    // Checks that may break the server (generated arguments, malformed input) run late; the
    // keep-alive check runs last: it judges a stream watched since the suite opened.
    checks: [
      ...lifecycleChecks,
      ...earlyRequestChecks,
      ...toolChecks,
      ...stdioChecks,
      ...sseChecks,
      ...sessionModelChecks,
      ...propertyChecks,
      ...notCalledChecks,
      ...malformedChecks,
      ...keepAliveChecks,
    ].map(skipShouldOnPrerequisite),
    describeTarget,
    targetArgs,
    open: (target) => openToolServer(target, options),
  };
}

export const toolServerSuite = createToolServerSuite();
