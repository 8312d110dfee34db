import { type Check, CheckSkipped, type Suite } from '../../harness/check.js';
import { KEEP_CLIENT_WARM } from '../../warm/advice.js';
import { gatedByRevision } from '../revision-gate.js';
import { startBudgetScale } from '../target-options.js';
import { LearnedSecrets, targetScrubber } from '../target-secrets.js';
import { errorChecks } from './checks/errors.js';
import { initializeChecks } from './checks/initialize.js';
import { leftoverChecks } from './checks/leftovers.js';
import { lifecycleChecks } from './checks/lifecycle.js';
import { resultChecks } from './checks/results.js';
import { sseChecks } from './checks/sse.js';
import { stdioChecks } from './checks/stdio.js';
import { streamableHttpChecks } from './checks/streamable-http.js';
import { openToolClient, type ToolClientCtx, type ToolClientSuiteOptions } from './context.js';
import {
  CASE_TIMEOUT_MS,
  describeTarget,
  revisionOf,
  TOOL_TRANSPORTS,
  type ToolClientTarget,
  type ToolTransport,
  targetArgs,
  toolClientEnv,
  transportsOf,
} from './target.js';
import { excusedBeforeInitialize } from './uninitialized.js';

const OWN_CHECKS: Record<ToolTransport, Check<ToolClientCtx>[]> = {
  stdio: stdioChecks,
  sse: sseChecks,
  http: streamableHttpChecks,
};

/** A check of transport `t` runs only when the target is run over `t` (--transports). */
function overTransport(t: ToolTransport, check: Check<ToolClientCtx>): Check<ToolClientCtx> {
  return {
    ...check,
    async run(ctx, env) {
      if (!transportsOf(ctx.target).includes(t)) {
        throw new CheckSkipped(`the client is not run over ${t} (add it with --transports)`);
      }
      return check.run(ctx, env);
    },
  };
}

/** Every check, stdio ones first: the same rules over every transport, then each transport's own. */
function allChecks(): Check<ToolClientCtx>[] {
  const checks: Check<ToolClientCtx>[] = [];
  for (const t of TOOL_TRANSPORTS) {
    const own = [
      ...initializeChecks(t),
      ...lifecycleChecks(t),
      ...resultChecks(t),
      ...errorChecks(t),
      ...OWN_CHECKS[t],
    ];
    const gated = gatedByRevision(own.map(excusedBeforeInitialize), (ctx) => revisionOf(ctx.target, t));
    checks.push(...gated.map((check) => overTransport(t, check)));
  }
  // Last: it judges what every case of the run left running.
  checks.push(...leftoverChecks);
  return checks;
}

/** The tool-client suite with its own tuning (property caps, per-run budget). */
export function createToolClientSuite(
  options: ToolClientSuiteOptions = {},
): Suite<ToolClientTarget, ToolClientCtx> {
  // Per target, what its client sent the mocks as credentials: a client may print its token or
  // echo it in a tool argument, and a report quotes both.
  const learned = new WeakMap<ToolClientTarget, LearnedSecrets>();
  const learnedOf = (target: ToolClientTarget) => {
    const found = learned.get(target) ?? new LearnedSecrets();
    learned.set(target, found);
    return found;
  };
  return {
    name: 'tool-client',
    concurrent: true,
    description:
      'Runs a tool client command against mock tool servers (stdio and SSE; Streamable HTTP with --transports) and checks what it sent and printed.',
    checks: allChecks(),
    describeTarget,
    targetArgs,
    // Asked again for every result: the secrets learned by then, those of the result's own cases among them.
    scrubber: (target) => targetScrubber({ commands: [target.client] }, learned.get(target)?.list()),
    budgetScale: (target) =>
      startBudgetScale(target.startTimeoutMs, options.caseTimeoutMs ?? CASE_TIMEOUT_MS),
    // Its waiting checks (a slow initialize, a slow reply, a stream's retry) judge only that the
    // client waited long enough.
    waitsAtOnce: allChecks().filter((c) => c.schedule === 'waits').length,
    open: (target, env) =>
      openToolClient(target, env.seed, options, (secrets) => learnedOf(target).learn(secrets)),
    // Empty stdin and a server command that exits at once: the client starts, finds no call, exits.
    bareStart: (target) => ({
      what: 'client',
      command: target.client,
      fasterStart: KEEP_CLIENT_WARM,
      env: toolClientEnv(options.baseEnv ?? process.env, { transport: 'stdio', command: 'exit 0' }),
    }),
  };
}

export const toolClientSuite = createToolClientSuite();
