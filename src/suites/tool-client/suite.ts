import type { Check, Suite } from '../../harness/check.js';
import { errorChecks } from './checks/errors.js';
import { initializeChecks } from './checks/initialize.js';
import { lifecycleChecks } from './checks/lifecycle.js';
import { resultChecks } from './checks/results.js';
import { sseChecks } from './checks/sse.js';
import { stdioChecks } from './checks/stdio.js';
import { openToolClient, type ToolClientCtx, type ToolClientSuiteOptions } from './context.js';
import {
  describeTarget,
  TOOL_TRANSPORTS,
  type ToolClientTarget,
  targetArgs,
  toolClientEnv,
} from './target.js';

/** Every check, stdio ones first: the same rules over both transports, then each transport's own. */
function allChecks(): Check<ToolClientCtx>[] {
  const checks: Check<ToolClientCtx>[] = [];
  for (const t of TOOL_TRANSPORTS) {
    checks.push(...initializeChecks(t), ...lifecycleChecks(t), ...resultChecks(t), ...errorChecks(t));
    checks.push(...(t === 'stdio' ? stdioChecks : sseChecks));
  }
  return checks;
}

/** The tool-client suite with its own tuning (property caps, per-run budget). */
export function createToolClientSuite(
  options: ToolClientSuiteOptions = {},
): Suite<ToolClientTarget, ToolClientCtx> {
  return {
    name: 'tool-client',
    concurrent: true,
    description:
      'Runs a tool client command against mock tool servers (stdio and SSE) and checks what it sent and printed.',
    checks: allChecks(),
    describeTarget,
    targetArgs,
    open: (target, env) => openToolClient(target, env.seed, options),
    // Empty stdin and a server command that exits at once: the client starts, finds no call, exits.
    bareStart: (target) => ({
      what: 'client',
      command: target.client,
      env: toolClientEnv(options.baseEnv ?? process.env, { transport: 'stdio', command: 'exit 0' }),
    }),
  };
}

export const toolClientSuite = createToolClientSuite();
