import { type Check, NotExercised } from '../../../harness/check.js';
import { CAPPED_MAX_TURNS, DEFAULT_CAP_HARD_STOP } from '../cases.js';
import type { AgentCaseResult, AgentCtx } from '../context.js';
import {
  CHECK_BUDGET_MS,
  caseFailure,
  exitOf,
  expectExit,
  expectNotCutShort,
  PACED_CASE_BUDGETS,
  refusedRequest,
  runContext,
} from '../expect.js';

const CAP =
  'Tool-use loop (client side: "turn count reached cap: halted"); Errors ("loop reaches the turn cap: loop stops")';
const LIMITS = 'Limits (turns per user prompt: "example loops use 5; recommended cap 10 to 15")';

/** Limits: "recommended cap 10 to 15"; one more request for an agent that counts turns after the first. */
const RECOMMENDED_MAX_REQUESTS = 16;

/**
 * A cap shows only in a loop that went on: an agent that sent one request and stopped (or
 * whose requests the mock refused) reached no cap, whatever its exit status. The loop
 * checks judge an agent that does not send the results back.
 */
function expectWentOn(result: AgentCaseResult): void {
  expectNotCutShort(result, 'a cap could stop it', result.requests.length);
  if (result.requests.length < 2) {
    throw new NotExercised(
      `case ${result.spec.name}: the agent sent ${result.requests.length} request(s) and never went on after a tool call (${exitOf(result)}): no cap to measure; the loop checks judge that`,
    );
  }
}

/**
 * The requests an agent may send under the capped case's cap. The spec's Turn is an element of
 * `messages`, so an agent may count the prompt, each reply and each results turn: two a request,
 * reaching the cap after floor(cap / 2) requests. An agent counting requests sends cap of them, or
 * cap + 1 when the first is not a turn.
 */
const CAPPED_FEWEST_REQUESTS = Math.floor(CAPPED_MAX_TURNS / 2);
const CAPPED_MOST_REQUESTS = CAPPED_MAX_TURNS + 1;

/**
 * Whether the default-cap case (no WIRECHECK_MAX_TURNS) ended by itself after `requests`
 * requests too: then the capped case's stop may be the agent's own default, not the variable.
 */
function sameStopWithout(unset: AgentCaseResult, requests: number): boolean {
  return (
    unset.requests.length === requests &&
    !unset.run.timedOut &&
    unset.stoppedAfterRequests === undefined &&
    refusedRequest(unset) === undefined
  );
}

/** How long an endless case's agent may run. */
function pacedBudget(ctx: AgentCtx): string {
  const seconds = ctx.caseTimeoutMs / 1000;
  return `${seconds} s without a request, or ${seconds * PACED_CASE_BUDGETS} s from the first`;
}

export const capChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.cap.honoured',
    clause: `${CAP}; Turn (an element of \`messages\`); target contract, agent (WIRECHECK_MAX_TURNS is the turn cap; exit 0 when the cap is reached)`,
    description: `With WIRECHECK_MAX_TURNS=${CAPPED_MAX_TURNS} and a model that never stops calling tools, the agent sends ${CAPPED_FEWEST_REQUESTS} to ${CAPPED_MOST_REQUESTS} requests and exits 0: ${CAPPED_MAX_TURNS} (or ${CAPPED_MOST_REQUESTS}, the first request not counted) when a turn is a request, ${CAPPED_FEWEST_REQUESTS} when a turn is a message of the conversation, as the spec defines it.`,
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every client of the loop: the loop stops when the turn count reaches the cap; the target contract: WIRECHECK_MAX_TURNS sets the cap and the agent exits 0. The spec's Turn is an element of \`messages\` (the prompt, each reply, each results turn: two a request), and it does not say whether the first request is a turn, so every reading passes: from floor(cap / 2) requests (turns counted as messages) to cap + 1 (turns counted as requests after the first). Fewer requests stop before any reading of the cap, more go past it. An agent that sends as many requests without WIRECHECK_MAX_TURNS (its own default cap) showed no effect of the variable: not exercised.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('capped');
      const n = result.requests.length;
      if (n < CAPPED_FEWEST_REQUESTS || n > CAPPED_MOST_REQUESTS) {
        expectNotCutShort(result, 'the turn cap', CAPPED_MAX_TURNS);
        throw caseFailure(
          result,
          `the turn cap was not honoured: ${n} requests under a cap of ${CAPPED_MAX_TURNS} turns is ${n < CAPPED_FEWEST_REQUESTS ? 'fewer' : 'more'} than any reading of a turn allows (${runContext(result)})`,
          `${CAPPED_FEWEST_REQUESTS} to ${CAPPED_MOST_REQUESTS} requests (${CAPPED_FEWEST_REQUESTS}: a turn is a message; ${CAPPED_MAX_TURNS} or ${CAPPED_MOST_REQUESTS}: a turn is a request)`,
          `${n} requests`,
        );
      }
      expectExit(result, 0, 'reaching the turn cap ends the loop, so the agent must exit 0');
      // The default-cap case runs for agent.cap.default anyway; an agent whose default is the
      // cap is possible, so the same stop is no fault, only no sign the variable was read.
      const unset = await ctx.result('defaultCap');
      if (sameStopWithout(unset, n)) {
        throw new NotExercised(
          `the agent sent ${n} requests without WIRECHECK_MAX_TURNS too (case ${unset.spec.name}, ${exitOf(unset)}), as many as under WIRECHECK_MAX_TURNS=${CAPPED_MAX_TURNS}: its own cap may have stopped it, so the variable's effect was not seen`,
        );
      }
    },
  },
  {
    id: 'agent.cap.exact',
    clause: `${CAP}; ${LIMITS}; Turn (an element of \`messages\`)`,
    description: `A turn is a request: with WIRECHECK_MAX_TURNS=${CAPPED_MAX_TURNS} the agent sends exactly ${CAPPED_MAX_TURNS} requests.`,
    level: 'should',
    basis: 'protocol-should',
    rule: "The spec's Turn is a message of the conversation, so an agent counting messages (about two a request) or not counting the first request reads it legitimately, and agent.cap.honoured passes both. But a cap is set to bound what a prompt costs, and requests are what is paid for: counting each request sent as a turn makes WIRECHECK_MAX_TURNS the number of requests, which is what a user setting it expects.",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('capped');
      expectNotCutShort(result, 'the turn cap', CAPPED_MAX_TURNS);
      if (result.requests.length === CAPPED_MAX_TURNS) return;
      throw caseFailure(
        result,
        `the agent sent ${result.requests.length} requests under a cap of ${CAPPED_MAX_TURNS} (${runContext(result)})`,
        `${CAPPED_MAX_TURNS} requests`,
        `${result.requests.length} requests`,
      );
    },
  },
  {
    id: 'agent.cap.default',
    clause: `${CAP}; ${LIMITS}`,
    description: `Without WIRECHECK_MAX_TURNS the agent still has a cap: a model that never stops is stopped before ${DEFAULT_CAP_HARD_STOP} requests, and the agent exits 0.`,
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every client of the loop: the loop has a turn cap and stops when it is reached, with or without WIRECHECK_MAX_TURNS. A model that never stops calling tools is stopped by the agent (before ${DEFAULT_CAP_HARD_STOP} requests, far past any cap the spec mentions). The case's time counts per request (a minute between two, four in all), so an agent whose turns are slow reaches its cap within it; an agent that never went on after a tool call reached no cap, nor one still going when that time ran out: not exercised (the loop checks judge the first).`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('defaultCap');
      expectWentOn(result);
      if (result.requests.length >= DEFAULT_CAP_HARD_STOP) {
        throw caseFailure(
          result,
          `the agent never stopped by itself: the scripted model stopped it after ${DEFAULT_CAP_HARD_STOP} requests (${runContext(result)})`,
          `fewer than ${DEFAULT_CAP_HARD_STOP} requests`,
          `${result.requests.length} requests`,
        );
      }
      // The spec bounds the loop's turns, not its time: an agent whose commands are slow (a
      // container started per command) may reach its cap after the case's time is up.
      if (result.run.timedOut) {
        throw new NotExercised(
          `the agent was still going after ${result.requests.length} requests when the case's time ran out (${pacedBudget(ctx)}; ${exitOf(result)}): no cap was reached to judge`,
        );
      }
      expectExit(result, 0, 'reaching the turn cap ends the loop, so the agent must exit 0');
    },
  },
  {
    id: 'agent.cap.default-recommended',
    clause: LIMITS,
    description: `The default cap is within the recommendation: at most ${RECOMMENDED_MAX_REQUESTS - 1} turns, so at most ${RECOMMENDED_MAX_REQUESTS} requests.`,
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec recommends (does not require) a turn cap of 10 to 15 per user prompt; example loops use 5. The default cap should be at most 15 turns.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('defaultCap');
      expectWentOn(result);
      if (result.requests.length <= RECOMMENDED_MAX_REQUESTS) {
        // Fewer requests show a cap only when the agent stopped by itself, the loop not cut short.
        expectNotCutShort(result, 'a cap could stop it', result.requests.length);
        if (result.run.timedOut || result.run.exitCode !== 0) {
          throw new NotExercised(
            `the agent ended after ${result.requests.length} requests with ${exitOf(result)}, not at a cap; agent.cap.default judges that`,
          );
        }
        return;
      }
      throw caseFailure(
        result,
        `the default cap let ${result.requests.length} requests through (${runContext(result)})`,
        `at most ${RECOMMENDED_MAX_REQUESTS} requests`,
        `${result.requests.length} requests`,
      );
    },
  },
];
