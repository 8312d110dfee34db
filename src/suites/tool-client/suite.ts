import type { Check, Suite } from '../../harness/check.js';
import { gatedByRevision } from '../revision-gate.js';
import { errorChecks } from './checks/errors.js';
import { initializeChecks } from './checks/initialize.js';
import { leftoverChecks } from './checks/leftovers.js';
import { lifecycleChecks } from './checks/lifecycle.js';
import { resultChecks } from './checks/results.js';
import { sseChecks } from './checks/sse.js';
import { stdioChecks } from './checks/stdio.js';
import { openToolClient, type ToolClientCtx, type ToolClientSuiteOptions } from './context.js';
import { describeTarget, revisionOf, TOOL_TRANSPORTS, type ToolClientTarget, targetArgs } from './target.js';

/** Every check, stdio ones first: the same rules over both transports, then each transport's own. */
function allChecks(): Check<ToolClientCtx>[] {
  const checks: Check<ToolClientCtx>[] = [];
  for (const t of TOOL_TRANSPORTS) {
    checks.push(...initializeChecks(t), ...lifecycleChecks(t), ...resultChecks(t), ...errorChecks(t));
    checks.push(...(t === 'stdio' ? stdioChecks : sseChecks));
  }
  // Last: it judges what every case of the run left running.
  checks.push(...leftoverChecks);
  return checks;
}

/** The tool-client suite with its own tuning (property caps, per-run budget). */
export function createToolClientSuite(
  options: ToolClientSuiteOptions = {},
): Suite<ToolClientTarget, ToolClientCtx> {
  return {
    name: 'tool-client',
    description:
      'Runs a tool client command against mock tool servers (stdio and SSE) and checks what it sent and printed.',
    checks: gatedByRevision(allChecks(), (ctx) => revisionOf(ctx.target)),
    describeTarget,
    targetArgs,
    open: (target, env) => openToolClient(target, env.seed, options),
  };
}

export const toolClientSuite = createToolClientSuite();
