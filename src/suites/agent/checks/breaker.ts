import { type Check, CheckFailure, NotExercised } from '../../../harness/check.js';
import { CASES, type CaseKey } from '../cases.js';
import type { AgentCaseResult, AgentCtx } from '../context.js';
import {
  CHECK_BUDGET_MS,
  caseFailure,
  expectExit,
  expectNotCutShort,
  expectRequestCount,
  runContext,
} from '../expect.js';
import {
  echoesConversation,
  linesBeyond,
  NO_STDERR_LINES,
  type StderrLine,
  type StderrLines,
} from '../operator-lines.js';

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

/** The one-call case's name, for the rules. */
const CONTROL_CASE_NAME = CASES[CONTROL_CASE].name;

/**
 * The runs halted for the breaker, and the lines of the control run they are compared with.
 * NotExercised when the breaker halted none: there was no line to look for.
 */
async function breakerRuns(
  ctx: AgentCtx,
): Promise<{ control: AgentCaseResult; usual: StderrLines; halted: AgentCaseResult[] }> {
  const control = await ctx.result(CONTROL_CASE);
  // A control that halted as at the breaker may have printed the breaker's line itself.
  const usual = control.run.exitCode === BREAKER_EXIT ? NO_STDERR_LINES : control.stderrLines;
  const halted = (await ctx.results(TRIPPING_CASES)).filter((result) => {
    // A run halted for the breaker: exit 3, or stopped right after the third failure with
    // every request answered (not one that gave up on a refused request). After the first
    // reply, stopping is no sign of a breaker: an agent that dies at its first failing
    // command stops there too (agent.breaker.halts-at-third judges it).
    const halts = HALTS_AFTER[result.spec.name] ?? 0;
    const stoppedThere =
      halts > 1 && result.requests.length === halts && result.requests.every((r) => r.status === 200);
    return result.run.exitCode === BREAKER_EXIT || stoppedThere;
  });
  if (halted.length === 0) {
    throw new NotExercised(
      'the breaker never tripped (see agent.breaker.halts-at-third), so there was no line to look for',
    );
  }
  return { control, usual, halted };
}

/** The commands of the bash tool_use blocks the mock served in a run. */
function servedCommands(result: AgentCaseResult): string[] {
  return result.served.flatMap((message) =>
    (message?.content ?? []).flatMap((block) => {
      const command = (block as { type?: unknown; input?: { command?: unknown } }).input?.command;
      return block.type === 'tool_use' && typeof command === 'string' ? [command] : [];
    }),
  );
}

/**
 * The stderr lines of a run halted at the breaker that are its own: not printed by the control
 * run, and not only an echo of the conversation (a turn's log, a served command).
 */
function ownLines(result: AgentCaseResult, usual: StderrLines): readonly StderrLine[] {
  const commands = servedCommands(result);
  return linesBeyond(result.stderrLines, usual).filter((l) => !echoesConversation(l, commands));
}

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
    description:
      'When the breaker trips the agent prints a line on stderr that it does not print where the breaker does not trip (its request for operator intervention; breaker.operator-line-asks reads its words).',
    level: 'must',
    basis: 'spec',
    rule: `${BREAKER_RULE} The target contract: that request is a line on stderr. Its words are not fixed, and whether words ask a person to act cannot be decided for every wording, so this check asks for the line itself: one the agent prints when the breaker trips and does not print where the breaker does not trip (case ${CONTROL_CASE_NAME}; lines compared with numbers, ids and paths set aside). Any such line counts, a bare stack trace included (breaker.operator-line-asks warns when none reads as a request); a banner or a log line the agent prints in every run does not, nor does a line that only echoes the conversation (a log of a turn, "[assistant] ...", or a served command printed as such), unless it asks someone to act.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const { control, usual, halted } = await breakerRuns(ctx);
      for (const result of halted) {
        const printed = result.stderrLines;
        // Lines left unkept (more) may hold the request: not a failure to call.
        if (ownLines(result, usual).length > 0 || printed.more) continue;
        const usualLines = printed.lines.map((l) => JSON.stringify(l.line));
        throw new CheckFailure(
          `case ${result.spec.name}: the agent halted after three consecutive failures but asked nobody for intervention: it printed no line on stderr that it does not print where the breaker does not trip (${runContext(result)})`,
          `a stderr line asking for operator (human) intervention, one the agent does not print where the breaker does not trip (case ${control.spec.name})`,
          usualLines.length > 0
            ? `only line(s) it printed in case ${control.spec.name} too, where the breaker did not trip: ${usualLines.slice(0, 3).join('; ')}`
            : result.run.stderr === ''
              ? 'empty stderr'
              : `stderr: ${result.run.stderr.slice(-600)}`,
        );
      }
    },
  },
  {
    id: 'agent.breaker.operator-line-asks',
    clause: `${BREAKER}; target contract, agent ("a line on stderr asking for operator intervention")`,
    description:
      'Of the lines the agent prints only when the breaker trips, one reads as asking a person to act (an operator, a human, a developer, the user; intervention, instructions, help; take a look, verify, retry...).',
    level: 'should',
    basis: 'protocol-should',
    rule: `${BREAKER_RULE} The target contract asks for a line on stderr asking for operator intervention, without fixing its words. Among the lines the agent prints when the breaker trips and not where it does not (breaker.operator-line asks for one), one should read as a request: naming someone to act (an operator, a human, an administrator, a developer, an engineer, on-call, the user awaited or handed the run), intervention, instructions, help or advice, a review, an investigation or an escalation, or asking to take a look, verify, fix, retry or re-run something. A reading of words can miss a wording, so a line that reads as none of these (a bare stack trace, "stopped.") is a warning, never a failure; the conversation's roles in a log of the loop ("[assistant]", "user turn") ask nobody.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const { usual, halted } = await breakerRuns(ctx);
      let judged = 0;
      for (const result of halted) {
        const printed = result.stderrLines;
        const beyond = ownLines(result, usual);
        // No line of its own: breaker.operator-line fails that; there are no words to read.
        if (beyond.length === 0) continue;
        judged++;
        // An unkept line asking someone to act may be the request.
        if (beyond.some((l) => l.asks) || printed.moreAsking) continue;
        throw new CheckFailure(
          `case ${result.spec.name}: none of the lines the agent printed only when the breaker tripped reads as asking a person to act (${runContext(result)})`,
          'a line asking for operator (human) intervention: naming someone to act, intervention, instructions or help, or asking to take a look, verify, fix or retry',
          `${beyond.length} line(s) printed only when the breaker tripped: ${beyond
            .slice(0, 3)
            .map((l) => JSON.stringify(l.line))
            .join('; ')}${beyond.length > 3 ? '; ...' : ''}`,
        );
      }
      if (judged === 0) {
        throw new NotExercised(
          'the agent printed no line of its own when the breaker tripped (agent.breaker.operator-line judges that), so there were no words to read',
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
