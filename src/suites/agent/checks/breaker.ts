import { type Check, CheckFailure, NotExercised } from '../../../harness/check.js';
import type { CaseKey } from '../cases.js';
import type { AgentCtx } from '../context.js';
import {
  CHECK_BUDGET_MS,
  caseFailure,
  expectExit,
  expectNotCutShort,
  expectRequestCount,
  runContext,
} from '../expect.js';
import { linesBeyond, NO_OPERATOR_LINES } from '../operator-lines.js';

const BREAKER =
  'Errors ("3 consecutive non-zero exits: circuit breaker: halt the agent and request human intervention"); Limits (consecutive failing commands: 3, then halt)';
const LOOP = 'Tool-use loop (client side: "result ready: circuit breaker trips: halted")';
const BREAKER_RULE =
  'The spec, for every client of the loop: after 3 consecutive non-zero exits the circuit breaker trips: the agent halts (sends nothing more) and requests human intervention.';

const BREAKER_EXIT = 3;
const TRIPPING_CASES: readonly CaseKey[] = [
  'consecutiveFailures',
  'failuresInOneReply',
  'failuresAcrossReplies',
];
/** A case where the breaker does not trip: what the agent prints there asks for nothing about it. */
const CONTROL_CASE: CaseKey = 'oneCall';
/** Requests a conforming agent sends in each tripping case before it halts. */
const HALTS_AFTER: Readonly<Record<string, number>> = {
  'consecutive-failures': 3,
  'failures-in-one-reply': 1,
  'failures-across-replies': 2,
};

export const breakerChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.breaker.halts-at-third',
    clause: `${BREAKER}; ${LOOP}`,
    description:
      'Three replies each asking for one failing command: the results of the first two are sent, and after the third failure nothing more is sent (3 requests).',
    level: 'must',
    basis: 'spec',
    rule: BREAKER_RULE,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('consecutiveFailures');
      const n = result.requests.length;
      // Three requests count only when the mock served them: refused ones end no loop by the breaker.
      expectNotCutShort(result, 'the third consecutive failure', HALTS_AFTER[result.spec.name]);
      if (n === 3) return;
      const why =
        n > 3
          ? 'the agent went on after the third consecutive failure'
          : 'the agent halted before the third consecutive failure';
      throw caseFailure(
        result,
        `${why} (${runContext(result)})`,
        "3 requests (the third reply's failing result is never sent)",
        `${n} requests`,
      );
    },
  },
  {
    id: 'agent.breaker.exit-status',
    clause: `${BREAKER}; target contract, agent ("exit 3 when the circuit breaker trips")`,
    description: 'When the breaker trips the agent exits with status 3.',
    level: 'must',
    basis: 'contract',
    rule: 'The target contract, for every agent: when the circuit breaker trips (3 consecutive failing commands) the agent exits with status 3, so a driver can tell a halt from a finished loop.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('consecutiveFailures');
      expectExit(result, BREAKER_EXIT, 'three consecutive commands failed', HALTS_AFTER[result.spec.name]);
    },
  },
  {
    id: 'agent.breaker.operator-line',
    clause: `${BREAKER}; target contract, agent ("a line on stderr asking for operator intervention")`,
    description: 'When the breaker trips the agent asks for operator intervention on stderr.',
    level: 'must',
    basis: 'spec',
    rule: `${BREAKER_RULE} The target contract: that request is a line on stderr asking for operator (human) intervention; its words are not fixed, so a line naming someone to act (an operator, a human, an administrator, the user, on-call), intervention, a review, an investigation, an escalation or a manual step, or asking to fix or re-run something ("please investigate", "fix the environment and re-run") counts; the conversation's roles in a log of the loop ("[assistant]", "user turn") ask nobody, nor does a line the agent also prints where the breaker does not trip (a banner, a hint at --help; compared with numbers, ids and paths set aside).`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const control = await ctx.result(CONTROL_CASE);
      // A control that halted as at the breaker may have printed the breaker's line itself.
      const usual = control.run.exitCode === BREAKER_EXIT ? NO_OPERATOR_LINES : control.operatorLines;
      let halted = 0;
      for (const result of await ctx.results(TRIPPING_CASES)) {
        // A run halted for the breaker: exit 3, or stopped right after the third failure
        // with every request answered (not one that gave up on a refused request). After the
        // first reply, stopping is no sign of a breaker: an agent that dies at its first
        // failing command stops there too (agent.breaker.halts-at-third judges it).
        const halts = HALTS_AFTER[result.spec.name] ?? 0;
        const stoppedThere =
          halts > 1 && result.requests.length === halts && result.requests.every((r) => r.status === 200);
        if (result.run.exitCode !== BREAKER_EXIT && !stoppedThere) continue;
        halted++;
        const asked = result.operatorLines;
        // Lines left unkept (more) may hold the request: not a failure to call.
        if (linesBeyond(asked, usual).length > 0 || asked.more) continue;
        const usualLines = asked.lines.map((l) => JSON.stringify(l.line));
        throw new CheckFailure(
          `case ${result.spec.name}: the agent halted after three consecutive failures but asked nobody for intervention (${runContext(result)})`,
          `a stderr line asking for operator (human) intervention, one the agent does not print where the breaker does not trip (case ${control.spec.name})`,
          usualLines.length > 0
            ? `only line(s) it printed in case ${control.spec.name} too, where the breaker did not trip: ${usualLines.slice(0, 3).join('; ')}`
            : result.run.stderr === ''
              ? 'empty stderr'
              : `stderr: ${result.run.stderr.slice(-600)}`,
        );
      }
      if (halted === 0) {
        throw new NotExercised(
          'the breaker never tripped (see agent.breaker.halts-at-third), so there was no line to look for',
        );
      }
    },
  },
  {
    id: 'agent.breaker.one-reply',
    clause: `${BREAKER} (counted per command)`,
    description: 'Three failing commands in one reply trip the breaker: no further request, exit 3.',
    level: 'must',
    basis: 'spec',
    rule: `${BREAKER_RULE} Exits are counted per command, so three failing commands of one reply are three consecutive non-zero exits.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('failuresInOneReply');
      expectRequestCount(result, 1, 'the one reply asked for three commands that all fail');
      expectExit(result, BREAKER_EXIT, 'three consecutive commands failed');
    },
  },
  {
    id: 'agent.breaker.across-replies',
    clause: `${BREAKER} (counted per command, across replies)`,
    description:
      'Two failures (one reply), then one more failure (the next reply) trip the breaker: 2 requests, exit 3.',
    level: 'must',
    basis: 'spec',
    rule: `${BREAKER_RULE} Exits are counted per command, across replies: two failures ending one reply and one starting the next are three in a row.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('failuresAcrossReplies');
      expectRequestCount(result, 2, 'the third consecutive failing command was in the second reply');
      expectExit(result, BREAKER_EXIT, 'three consecutive commands failed');
    },
  },
  {
    id: 'agent.breaker.reset-by-success',
    clause: `${BREAKER}; Errors ("shell command fails: ... the loop continues")`,
    description:
      "Failures separated by a success (F, F, S, F, F: one command per reply, so the order a reply's commands run in does not matter) never trip the breaker: the loop runs to the end and exits 0.",
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every client of the loop: a failing command does not stop the loop ("the loop continues"); only 3 *consecutive* non-zero exits trip the breaker, so a success in between starts the count again.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('separatedFailures');
      expectRequestCount(
        result,
        result.spec.steps,
        'no three failing commands came in a row, so every reply must be answered',
      );
      expectExit(result, 0, 'the loop ended without three consecutive failures');
    },
  },
];
