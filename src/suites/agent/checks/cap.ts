import { type Check, CheckFailure } from '../../../harness/check.js';
import { CAPPED_MAX_TURNS, DEFAULT_CAP_HARD_STOP } from '../cases.js';
import type { AgentCtx } from '../context.js';
import { CASE_BUDGET_MS, expectExit, runContext } from '../expect.js';

/** Limits: "recommended cap 10 to 15"; one more request for an agent that counts turns after the first. */
const RECOMMENDED_MAX_REQUESTS = 16;

export const capChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.cap.honoured',
    clause:
      'Tool-use loop: "turn count reached cap: halted"; Errors: loop reaches the turn cap, loop stops; TARGETS agent: WIRECHECK_MAX_TURNS, exit 0',
    description: `With WIRECHECK_MAX_TURNS=${CAPPED_MAX_TURNS} and a model that never stops calling tools, the agent sends ${CAPPED_MAX_TURNS} requests (${CAPPED_MAX_TURNS + 1} tolerated: the spec does not say whether the first request is a turn) and exits 0.`,
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('capped');
      const n = result.requests.length;
      if (n < CAPPED_MAX_TURNS || n > CAPPED_MAX_TURNS + 1) {
        throw new CheckFailure(
          `the turn cap was not honoured (${runContext(result)})`,
          `${CAPPED_MAX_TURNS} requests (or ${CAPPED_MAX_TURNS + 1})`,
          `${n} requests`,
        );
      }
      expectExit(result, 0, 'reaching the turn cap ends the loop, so the agent must exit 0');
    },
  },
  {
    id: 'agent.cap.exact',
    clause: 'Tool-use loop: "turn count reached cap"; Limits: turns per user prompt',
    description: `A turn is a request: with WIRECHECK_MAX_TURNS=${CAPPED_MAX_TURNS} the agent sends exactly ${CAPPED_MAX_TURNS} requests.`,
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('capped');
      if (result.requests.length === CAPPED_MAX_TURNS) return;
      throw new CheckFailure(
        `the agent sent ${result.requests.length} requests under a cap of ${CAPPED_MAX_TURNS} (${runContext(result)})`,
        `${CAPPED_MAX_TURNS} requests`,
        `${result.requests.length} requests`,
      );
    },
  },
  {
    id: 'agent.cap.default',
    clause: 'Errors: "Loop reaches the turn cap: loop stops"; Limits: turns per user prompt',
    description: `Without WIRECHECK_MAX_TURNS the agent still has a cap: a model that never stops is stopped before ${DEFAULT_CAP_HARD_STOP} requests, and the agent exits 0.`,
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('defaultCap');
      if (result.requests.length >= DEFAULT_CAP_HARD_STOP) {
        throw new CheckFailure(
          `the agent never stopped by itself: the scripted model stopped it after ${DEFAULT_CAP_HARD_STOP} requests (${runContext(result)})`,
          `fewer than ${DEFAULT_CAP_HARD_STOP} requests`,
          `${result.requests.length} requests`,
        );
      }
      expectExit(result, 0, 'reaching the turn cap ends the loop, so the agent must exit 0');
    },
  },
  {
    id: 'agent.cap.default-recommended',
    clause: 'Limits: turns per user prompt ("example loops use 5; recommended cap 10 to 15")',
    description: `The default cap is within the recommendation: at most ${RECOMMENDED_MAX_REQUESTS - 1} turns, so at most ${RECOMMENDED_MAX_REQUESTS} requests.`,
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('defaultCap');
      if (result.requests.length <= RECOMMENDED_MAX_REQUESTS) return;
      throw new CheckFailure(
        `the default cap let ${result.requests.length} requests through (${runContext(result)})`,
        `at most ${RECOMMENDED_MAX_REQUESTS} requests`,
        `${result.requests.length} requests`,
      );
    },
  },
];
