import { join } from 'node:path';
import { type Check, CheckFailure, NotExercised, show } from '../../../harness/check.js';
import { readTargetFile } from '../../../harness/target-file.js';
import { CASE_KEYS, type CaseKey, FAILING_COMMANDS, MARKER_FILE } from '../cases.js';
import type { AgentCtx } from '../context.js';
import {
  addedTurns,
  arrivedToolResult,
  bodyCut,
  cutBodiesNote,
  type FollowUp,
  followUpsOf,
  newToolResults,
  type ToolUseBlock,
  textOfResult,
  toolUsesOfMessage,
} from '../conversation.js';
import {
  CHECK_BUDGET_MS,
  caseFailure,
  expectExit,
  expectNotCutShort,
  expectRequestCount,
  runContext,
  workdirReady,
} from '../expect.js';

const LOOP = 'Tool-use loop (client side)';
const ONE_PER_USE =
  'The spec, for every client of the loop: each tool_use is answered by one tool_result with the same id ("one tool_result per tool_use, same id"), and the results travel in the user turn that follows the assistant turn.';

/** The follow-ups of `keys`, or NotExercised when the agent answered no reply with tool calls. */
async function followUps(ctx: AgentCtx, keys: readonly CaseKey[]): Promise<FollowUp[]> {
  const results = await ctx.results(keys);
  const found = followUpsOf(results);
  if (found.length === 0) {
    throw new NotExercised(
      `no follow-up request reached the mock (in no case did the agent answer a reply with tool calls)${cutBodiesNote(results)}`,
    );
  }
  return found;
}

/** The follow-ups of the cases whose commands could run where they were meant to (workdirReady). */
async function followUpsWithWorkdir(ctx: AgentCtx, keys: readonly CaseKey[]): Promise<FollowUp[]> {
  const results = await ctx.results(keys);
  const found = followUpsOf(results.filter(workdirReady));
  if (found.length > 0) return found;
  const missing = results.filter((r) => !workdirReady(r)).map((r) => r.spec.name);
  if (missing.length === 0) return followUps(ctx, keys);
  throw new NotExercised(
    `the agent did not create WIRECHECK_WORKDIR in case ${missing.join(', ')}, so its commands had nowhere to run (agent.runner.workdir judges that), and no other case had a follow-up`,
  );
}

import { scriptedToolUseId } from '../script.js';

/** Cases whose commands have a known outcome (the restart call's result is the runner's choice). */
const OUTCOME_CASES: readonly CaseKey[] = [
  'oneCall',
  'severalCalls',
  'consecutiveFailures',
  'failuresAcrossReplies',
  'separatedFailures',
];

function commandOf(use: ToolUseBlock): string {
  const input = use.input as { command?: unknown } | undefined;
  return typeof input?.command === 'string' ? input.command : '';
}

/** More than "wc-beta" and a line break: enough to quote what else an agent left there. */
const MARKER_MAX_BYTES = 4096;

export const resultChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.results.one-user-turn',
    clause: `Content blocks ("one user turn may hold several tool_result blocks, one per tool_use block answered"); ${LOOP} ("client sends user turn with tool_result blocks"); Endpoints, follow-up turn`,
    description:
      'All tool_result blocks answering one reply travel in one user turn, the last turn of the follow-up request (user turns after it, such as a reminder, are part of it: the real API combines consecutive turns of one role).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every client of the loop: the results of one reply are sent as one user turn holding the tool_result blocks, after the assistant turn, ending the follow-up request. The real API combines consecutive turns of one role, so user turns after the results turn (a reminder, a note) end the request with it; it pairs a tool_use with the results of the turn sent right after it, so the results themselves are not spread over several turns.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      for (const f of await followUps(ctx, CASE_KEYS)) {
        const results = newToolResults(f);
        const turnIndexes = [...new Set(results.map((r) => r.turn))];
        const last = addedTurns(f).at(-1);
        const [only] = turnIndexes;
        if (
          turnIndexes.length === 1 &&
          only !== undefined &&
          last?.role === 'user' &&
          last.sentAt.includes(only)
        ) {
          continue;
        }
        const roleOf = (t: number) => `${t + 1} (${show(f.turns[t]?.role)})`;
        // The turns after a lone results turn that keep it from ending the request.
        const after =
          only === undefined || turnIndexes.length > 1
            ? []
            : f.turns.flatMap((turn, t) => (t > only && turn.role !== 'user' ? [roleOf(t)] : []));
        throw new CheckFailure(
          turnIndexes.length > 1
            ? `${f.label}: the tool results must be in one user turn that ends the request, not spread over several (the real API pairs a tool_use with the results of the turn right after it)`
            : `${f.label}: the tool results must be in one user turn that ends the request`,
          `one user turn holding every tool_result, ending the request (only user turns after it, which the real API combines with it); the request has ${f.turns.length} turn(s)`,
          results.length === 0
            ? 'no tool_result block after the earlier turns'
            : `tool_result blocks in turns ${turnIndexes.map(roleOf).join(', ')} of ${f.turns.length}${after.length > 0 ? `, followed by turn(s) of another role: ${after.join(', ')}` : ''}`,
        );
      }
    },
  },
  {
    id: 'agent.results.ids-match',
    clause: `${LOOP} ("one tool_result per tool_use, same id"); Content blocks (tool_use_id equals the id of the tool_use answered)`,
    description:
      'Each tool_use of the reply is answered by exactly one tool_result with its id, and no result answers anything else.',
    level: 'must',
    basis: 'spec',
    rule: ONE_PER_USE,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      for (const f of await followUps(ctx, CASE_KEYS)) {
        const asked = toolUsesOfMessage(f.reply).map((u) => u.id);
        const answered = newToolResults(f).map((r) => r.block.tool_use_id);
        const sorted = (ids: unknown[]) => ids.map((id) => JSON.stringify(id)).sort();
        if (JSON.stringify(sorted(asked)) === JSON.stringify(sorted(answered))) continue;
        throw new CheckFailure(
          `${f.label}: the tool_result ids must be exactly the tool_use ids of the reply`,
          show(asked),
          show(answered),
        );
      }
    },
  },
  {
    id: 'agent.results.order',
    clause: `${LOOP} ("one tool_result per tool_use"; the order is not stated)`,
    description: 'The tool_result blocks follow the order of the tool_use blocks they answer.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec does not state the order of the tool_result blocks in the user turn. Results in the order of the tool calls they answer are what the real API documents and what a reader of the conversation expects.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const several = (await followUps(ctx, CASE_KEYS)).filter((f) => toolUsesOfMessage(f.reply).length > 1);
      if (several.length === 0)
        throw new NotExercised('no follow-up answered a reply with several tool calls');
      for (const f of several) {
        const asked = toolUsesOfMessage(f.reply).map((u) => u.id);
        const answered = newToolResults(f).map((r) => r.block.tool_use_id);
        const inAsked = answered.filter((id) => asked.includes(id));
        const order = asked.filter((id) => inAsked.includes(id));
        if (JSON.stringify(order) === JSON.stringify(inAsked)) continue;
        throw new CheckFailure(
          `${f.label}: the results are not in the order of the tool calls`,
          show(order),
          show(inAsked),
        );
      }
    },
  },
  {
    id: 'agent.results.is-error',
    clause:
      'Runner contract for the shell tool, item 7 (is_error true exactly when the exit code is not 0); Errors (shell command fails: the loop continues)',
    description:
      "A result of a command exiting non-zero (false, (exit 2), sh -c 'exit 1') has is_error true; one of a command exiting 0 (echo, true) does not (is_error false or left out).",
    level: 'must',
    basis: 'spec',
    rule: "The spec, for every runner, the agent's included: is_error is true exactly when the command's exit code is not 0 (false when left out, the real API's default).",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const judged = { failing: 0, succeeding: 0 };
      for (const f of await followUpsWithWorkdir(ctx, OUTCOME_CASES)) {
        const results = newToolResults(f);
        for (const use of toolUsesOfMessage(f.reply)) {
          const result = results.find((r) => r.block.tool_use_id === use.id)?.block;
          if (result === undefined) continue; // agent.results.ids-match judges this
          const command = commandOf(use);
          const failing = FAILING_COMMANDS.includes(command);
          judged[failing ? 'failing' : 'succeeding']++;
          if (failing ? result.is_error === true : result.is_error !== true) continue;
          const arrived = arrivedToolResult(f.entry, use.id) as { is_error?: unknown } | undefined;
          const wrong =
            arrived !== undefined && arrived.is_error === undefined
              ? 'leaves out is_error (false)'
              : 'has the wrong is_error';
          throw new CheckFailure(
            `${f.label}: the result of ${JSON.stringify(command)} (exit ${failing ? 'non-zero' : '0'}) ${wrong}`,
            `is_error: ${failing}`,
            show(arrived ?? result),
          );
        }
      }
      // Half the rule is is_error true: a run that sent no result of a failing command did not show it.
      if (judged.failing === 0) {
        throw new NotExercised(
          judged.succeeding === 0
            ? 'no tool_result answered a command of known outcome'
            : `no tool_result answered a failing command (${judged.succeeding} result(s) of commands exiting 0 had is_error right): the agent sent none back`,
        );
      }
    },
  },
  {
    id: 'agent.results.output',
    clause:
      'Runner contract for the shell tool, items 4 (the result text is stdout) and 8 (the result block carries the text as content)',
    description:
      'The result of `echo wc-...` carries what the command printed, besides any quote of the command itself.',
    level: 'must',
    basis: 'spec',
    rule: "The spec, for every runner, the agent's included: the tool_result content is the command's captured output (stdout, then stderr).",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      let judged = 0;
      for (const f of await followUpsWithWorkdir(ctx, ['oneCall', 'severalCalls'])) {
        const results = newToolResults(f);
        for (const use of toolUsesOfMessage(f.reply)) {
          const command = commandOf(use);
          const printed = /^echo (wc-[a-z-]+)$/.exec(command)?.[1];
          const result = results.find((r) => r.block.tool_use_id === use.id)?.block;
          if (printed === undefined || result === undefined) continue;
          judged++;
          // The command holds what it prints: a result quoting it ("$ echo wc-x") shows no output.
          if (textOfResult(result).split(command).join('').includes(printed)) continue;
          throw new CheckFailure(
            `${f.label}: the result of ${JSON.stringify(command)} must carry its output`,
            `content containing ${JSON.stringify(printed)} besides the command's own text`,
            show(arrivedToolResult(f.entry, use.id) ?? result),
          );
        }
      }
      if (judged === 0) throw new NotExercised('no tool_result answered an `echo wc-...` command');
    },
  },
  {
    id: 'agent.loop.restart',
    clause: `Built-in shell tool definition, input \`restart\`; ${LOOP} ("one tool_result per tool_use, same id")`,
    description:
      'A bash call with `restart: true` is answered like any other (a tool_result with its id) and the loop goes on.',
    level: 'must',
    basis: 'spec',
    rule: `${ONE_PER_USE} A bash call with \`restart: true\` is a tool_use like any other: it is answered, and the loop goes on.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('restart');
      const id = scriptedToolUseId(result.spec.name, 0, 0);
      const second = result.requests[1];
      const cut = second === undefined ? undefined : bodyCut(second);
      if (cut !== undefined) {
        throw new NotExercised(`case ${result.spec.name}, request 2: ${cut} (${runContext(result)})`);
      }
      const answered =
        second?.body !== undefined && JSON.stringify(second.body).includes(`"tool_use_id":"${id}"`);
      if (!answered) {
        if (second === undefined) expectNotCutShort(result, 'the restart call could be answered', 1);
        // A body the mock refused unread (no key, another path): its own check judges that request.
        else if (second.body === undefined) expectNotCutShort(result, 'the answer could be read', 2);
        throw caseFailure(
          result,
          `the restart call was not answered in the next request (${runContext(result)})`,
          `a tool_result with tool_use_id ${id}`,
          second === undefined
            ? 'no second request'
            : show((second.body as { messages?: unknown })?.messages),
        );
      }
      expectRequestCount(
        result,
        result.spec.steps,
        'after the restart the model asked for one more command, then answered',
      );
      expectExit(result, 0, 'the loop ended, so the agent must exit 0');
    },
  },
  {
    id: 'agent.runner.workdir',
    clause:
      'Runner contract for the shell tool, item 2 ("in a dedicated working directory (created if absent)"); target contract, agent (WIRECHECK_WORKDIR: its bash runner\'s working directory)',
    description: 'Commands run in WIRECHECK_WORKDIR, which the agent creates when it does not exist yet.',
    level: 'must',
    basis: 'contract',
    rule: "The target contract, for every agent: WIRECHECK_WORKDIR is its bash runner's working directory; the spec, for every runner: that directory is created when absent. A file a command writes there is found there.",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('severalCalls');
      const path = join(result.workdir, MARKER_FILE);
      const file = readTargetFile(path, MARKER_MAX_BYTES);
      if (file.kind !== 'text') {
        expectNotCutShort(result, 'the model could ask for a command', 1);
        throw caseFailure(
          result,
          `\`echo wc-beta > ${MARKER_FILE}\` left no file in WIRECHECK_WORKDIR (${runContext(result)})`,
          `${path} holding "wc-beta"`,
          file.kind === 'absent' ? `no ${MARKER_FILE}` : `${MARKER_FILE} is ${file.what}`,
        );
      }
      const text = file.text;
      if (text.trim() !== 'wc-beta') {
        throw new CheckFailure(`${path} holds something else`, 'wc-beta', JSON.stringify(text.slice(0, 400)));
      }
    },
  },
];
