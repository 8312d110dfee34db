import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, CheckFailure, NotExercised, show } from '../../../harness/check.js';
import {
  atMessagesEndpoint,
  DEFAULT_BODY_LIMIT,
  type JournalEntry,
  MESSAGES_PATH,
} from '../../../mocks/messages/index.js';
import { describeDifferences } from '../../../protocol/compare.js';
import { CASE_KEYS, type CaseKey, OTHER_TOOL, OTHER_TOOL_MARKER } from '../cases.js';
import type { AgentCaseResult, AgentCtx } from '../context.js';
import {
  addedTurns,
  bodyCut,
  combineTurns,
  cutBodiesNote,
  describeRequest,
  followUpsOf,
  historyDifferences,
  newTurnsStart,
  onlyNewTurnsText,
  sendsOnlyNewTurns,
  servedBlocks,
  specDifferences,
  textOfTurn,
  toolUsesOfMessage,
  turnsOf,
} from '../conversation.js';
import {
  CHECK_BUDGET_MS,
  caseFailure,
  expectExit,
  expectNotCutShort,
  expectRequestCount,
  refusalOf,
  refusedRequest,
  runContext,
  workdirReady,
} from '../expect.js';
import { specRequestError } from '../spec-request.js';

/** Cases whose scripted model ends with a text reply inside the cap: the loop must end there. */
const ENDING_CASES: readonly CaseKey[] = ['oneCall', 'severalCalls', 'restart'];
/** The same, the final text stopping with max_tokens, or with a stop reason the spec does not list. */
const STOP_REASON_CASES: readonly CaseKey[] = ['maxTokensStop', 'unlistedStop'];

/** The stop_reason of the last reply a case's script has. */
function stopReasonOfLastStep(result: AgentCaseResult): string {
  const last = result.spec.step(result.spec.steps - 1);
  return last !== undefined && 'text' in last ? (last.stopReason ?? 'end_turn') : 'tool_use';
}

/** The mock's body limit, the real API's request size limit, as the messages name it. */
const BODY_LIMIT_MIB = DEFAULT_BODY_LIMIT / (1024 * 1024);

const LOOP = 'Tool-use loop (client side)';
const FOLLOW_UP =
  'Endpoints, POST /v1/messages ("follow-up turn: the earlier turns plus the assistant turn containing the tool_use block plus a user turn holding the matching tool_result block(s); tools is sent again on every request")';
const FOLLOW_UP_RULE =
  'The spec, for every client of the tool-use loop: a follow-up request carries the earlier turns, then the assistant turn holding the tool_use blocks, then a user turn holding the matching tool_result blocks.';

/**
 * The built-in shell tool: name `bash` and a dated type. A date the spec does not list (a newer
 * version) is not this check's fault to find: the real API refuses a type it does not know,
 * and agent.loop.requests-accepted warns about that (the mock serves it, as the spec allows it).
 */
function isBashTool(tool: unknown): boolean {
  const t = (tool ?? {}) as { type?: unknown; name?: unknown };
  return t.name === 'bash' && typeof t.type === 'string' && DATED_BASH_TYPE.test(t.type);
}
const DATED_BASH_TYPE = /^bash_\d{8}$/;

/** The `tools` of a request body, when it is an array (each element as the agent wrote it). */
function toolsOf(entry: JournalEntry): { name?: unknown; type?: unknown }[] | undefined {
  const tools = (entry.body as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? (tools as { name?: unknown; type?: unknown }[]) : undefined;
}

export const loopChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.loop.first-request',
    clause: `${LOOP}; Turn ("a plain string is a single text turn"); target contract, agent (stdin is the user's prompt)`,
    description:
      'The first request ends with a user turn carrying the prompt given on stdin (consecutive user turns count as one, as the real API combines them).',
    level: 'must',
    basis: 'contract',
    rule: "The target contract, for every agent: standard input holds the user's prompt, and the loop starts with it: the first request ends with a user turn whose text holds the prompt (as a string or as text blocks). Consecutive turns of one role are one turn, as the real API combines them, so the prompt followed by another user turn (the agent's environment, a reminder) is that turn.",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      let judged = 0;
      const results = await ctx.results(CASE_KEYS);
      for (const result of results) {
        const first = result.requests[0];
        if (first === undefined) {
          throw caseFailure(
            result,
            `the agent sent no request (${runContext(result)})`,
            'POST /v1/messages',
            'none',
          );
        }
        if (!bodyWhole(first)) continue;
        judged++;
        const last = combineTurns(turnsOf(first) ?? []).at(-1);
        if (last?.role !== 'user' || !textOfTurn(last).includes(result.spec.prompt)) {
          throw new CheckFailure(
            `case ${result.spec.name}: the first request must end with the user's prompt as a user turn`,
            `a user turn with the text ${JSON.stringify(result.spec.prompt)}`,
            last === undefined ? 'no turn' : show({ role: last.role, blocks: last.blocks }),
          );
        }
      }
      if (judged === 0) throw noBodyRead(results);
    },
  },
  {
    id: 'agent.loop.endpoint',
    clause: `${LOOP}; Endpoints, POST {base_url}/v1/messages; target contract, agent (WIRECHECK_BASE_URL has no /v1 and no trailing slash)`,
    description:
      'Every request of the loop goes to POST {WIRECHECK_BASE_URL}/v1/messages (a query string aside). A request to another endpoint of the real API (models, token counting, batches, files) is not failed: the spec does not show them, and the mock serves none.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every client of the messages service: a conversation is sent with POST {base_url}/v1/messages; the target contract gives the base URL without /v1 and without a trailing slash.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      for (const result of await ctx.results(CASE_KEYS)) {
        if (result.requests.length === 0) {
          throw caseFailure(
            result,
            `the agent sent no request (${runContext(result)})`,
            `POST ${MESSAGES_PATH}`,
            'none',
          );
        }
        for (const [i, entry] of result.requests.entries()) {
          if (atMessagesEndpoint(entry)) continue;
          throw new CheckFailure(
            `case ${result.spec.name}, request ${i + 1}: the request must go to POST {WIRECHECK_BASE_URL}${MESSAGES_PATH} (the mock answered status ${entry.status ?? 'none'})`,
            `POST ${MESSAGES_PATH}`,
            `${entry.method} ${entry.url}`,
          );
        }
      }
    },
  },
  {
    id: 'agent.loop.tools-every-request',
    clause: `${FOLLOW_UP}; Built-in shell tool definition (name bash)`,
    description:
      'Every request offers the bash tool in `tools` (a tool named bash: the built-in {"type":"bash_20250124"|"bash_20241022","name":"bash"}, or a custom tool of that name, which loop.bash-built-in warns of).',
    level: 'must',
    basis: 'spec',
    rule: "The spec, for every client of the loop: `tools` is sent again on every request, and the shell tool the loop runs is named bash. How the agent declares it (the built-in definition, or a custom tool with an input schema) is loop.bash-built-in's.",
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      let judged = 0;
      const results = await ctx.results(CASE_KEYS);
      for (const { result, entry, index } of readBodies(results)) {
        judged++;
        if (toolsOf(entry)?.some((t) => t?.name === 'bash')) continue;
        const raw = (entry.body as { tools?: unknown } | undefined)?.tools;
        throw new CheckFailure(
          `case ${result.spec.name}, request ${index + 1}: the bash tool must be sent on every request`,
          'tools: [{"type":"bash_20250124","name":"bash"}, ...]',
          raw === undefined ? 'no tools field' : show(raw),
        );
      }
      if (judged === 0) throw noBodyRead(results);
    },
  },
  {
    id: 'agent.loop.bash-built-in',
    clause:
      'Built-in shell tool definition (type bash_20250124 or bash_20241022, name bash; no parameter schema)',
    description:
      'The tool named bash is declared as the built-in shell tool ({"type":"bash_20250124"|"bash_20241022","name":"bash"}; a dated type the spec does not list passes here, and requests-accepted judges it as the real API does), not as a custom tool with an input schema.',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec defines the shell tool as a built-in: {"type": "bash_20250124" or "bash_20241022", "name": "bash"}, no parameter schema declared. It states no rule that every agent declares it so: a custom tool named bash (a description and an input schema with command) runs the same loop, but to the real API it is another tool, which the model knows only by its schema. A warning.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      let judged = 0;
      const results = await ctx.results(CASE_KEYS);
      for (const { result, entry, index } of readBodies(results)) {
        const named = toolsOf(entry)?.find((t) => t?.name === 'bash');
        if (named === undefined) continue;
        judged++;
        if (isBashTool(named)) continue;
        throw new CheckFailure(
          `case ${result.spec.name}, request ${index + 1}: the tool named bash is declared ${named.type === undefined ? 'without a type' : `with type ${JSON.stringify(named.type)}`}, as a custom tool, not as the built-in shell tool (a dated bash_ type and no parameter schema)`,
          '{"type":"bash_20250124","name":"bash"}',
          show(named),
        );
      }
      if (judged === 0) {
        throw new NotExercised(
          `no request body read offered a tool named bash (loop.tools-every-request judges that)${cutBodiesNote(results)}`,
        );
      }
    },
  },
  {
    id: 'agent.loop.requests-valid',
    clause: `Resources: message request body, Turn, Content blocks (directions; "a tool_result block appears in a user turn"); ${FOLLOW_UP}`,
    description:
      'Every request has the fields the spec requires, and its conversation follows the spec: tool_use only in assistant turns, each tool_result answering a tool_use of the turn right before it, none left unanswered.',
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every client: a request has model (string), max_tokens (integer) and messages (turns of role user or assistant, content a string or blocks); tool_use blocks come from the assistant, tool_result blocks from the user. ${FOLLOW_UP_RULE}`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      let judged = 0;
      const results = await ctx.results(CASE_KEYS);
      for (const { result, entry, index } of readBodies(results)) {
        judged++;
        const error = specRequestError(entry.body);
        if (error === undefined) continue;
        throw new CheckFailure(
          `case ${result.spec.name}, request ${index + 1}: the request breaks a rule of the spec: ${error}`,
          'a request body the spec allows',
          describeRequest(entry, index),
        );
      }
      if (judged === 0) throw noBodyRead(results);
    },
  },
  {
    id: 'agent.loop.requests-accepted',
    clause:
      'Resources: message request body (the real API judges more than the spec states: a positive max_tokens, a non-empty conversation...)',
    description:
      'Every request body is one the real Messages API accepts (the mock judges bodies as it does, and serves one the spec allows anyway, so that the rest of the loop is judged), and no larger than its limit (the mock refuses a larger one with 413, as it does).',
    level: 'should',
    basis: 'real-api',
    rule: `The real Messages API refuses bodies the spec does not rule on (max_tokens 0, an empty messages array, an empty model name, a malformed known block), and requests over its size limit of ${BODY_LIMIT_MIB} MiB (the spec: "request size limits of the messages service: not shown"). A client should send what the real service accepts.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const results = await ctx.results(CASE_KEYS);
      // A body over the size limit is judged by its size alone, before any of it is read.
      for (const result of results) {
        // One the agent got past (a smaller body served after it) is no turn, but was still sent.
        const retried = result.retriedRefusals?.find(tooLarge);
        if (retried !== undefined) {
          throw new CheckFailure(
            `case ${result.spec.name}: a request is larger than the real API accepts: the mock refused it with 413 request_too_large before reading it, as the real API refuses a request over its ${BODY_LIMIT_MIB} MiB limit (the spec shows no request size limit); the agent then sent one the mock read`,
            `a request body of at most ${BODY_LIMIT_MIB} MiB`,
            describeRequest(retried, retried.seq),
          );
        }
        const index = result.requests.findIndex(
          (entry) => entry.bodyError !== undefined || entry.realApiRefusal !== undefined || tooLarge(entry),
        );
        if (index === -1) continue;
        const entry = result.requests[index]!;
        throw new CheckFailure(
          entry.bodyError !== undefined
            ? `case ${result.spec.name}: the mock refused request ${index + 1} as the real API would: ${entry.bodyError}`
            : entry.realApiRefusal !== undefined
              ? `case ${result.spec.name}: the real API would refuse request ${index + 1} (the mock served it, as the spec allows it): ${entry.realApiRefusal}`
              : `case ${result.spec.name}: request ${index + 1} is larger than the real API accepts: the mock refused it with 413 request_too_large before reading it, as the real API refuses a request over its ${BODY_LIMIT_MIB} MiB limit (the spec shows no request size limit)`,
          tooLarge(entry)
            ? `a request body of at most ${BODY_LIMIT_MIB} MiB`
            : 'a request body the real API accepts',
          describeRequest(entry, index),
        );
      }
      // The mock judged each body it read whole, before its journal cut it: a cut body counts.
      if (!results.some((result) => result.requests.some(bodyRead))) throw noBodyRead(results);
    },
  },
  {
    id: 'agent.loop.history-kept',
    clause: FOLLOW_UP,
    description:
      'Each follow-up request starts with every turn of the request before it, unchanged (a default written out or left out, a string turn or its one text block, are the same).',
    level: 'must',
    basis: 'spec',
    rule: `${FOLLOW_UP_RULE} The earlier turns are sent again unchanged (compared on the fields the spec names, a documented default written out or left out being the same).`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const results = await ctx.results(CASE_KEYS);
      const followUps = followUpsOf(results);
      if (followUps.length === 0) throw noFollowUp(results);
      for (const f of followUps) {
        const found = historyDifferences(f);
        if (found.length === 0) continue;
        throw new CheckFailure(
          sendsOnlyNewTurns(f)
            ? `${f.label}: the earlier turns must be sent again, but ${onlyNewTurnsText(f)}`
            : `${f.label}: the earlier turns must be sent again unchanged; ${found.length} difference(s): ${describeDifferences(found)}`,
          show(f.earlier),
          show(f.turns.slice(0, f.earlier.length)),
        );
      }
    },
  },
  {
    id: 'agent.loop.assistant-turn',
    clause: `${LOOP} ("append assistant turn to messages"); ${FOLLOW_UP}`,
    description:
      'After the earlier turns comes the assistant turn of the reply, holding its tool_use blocks unchanged (id, name, input, in order; consecutive assistant turns count as one, as the real API combines them).',
    level: 'must',
    basis: 'spec',
    rule: `${FOLLOW_UP_RULE} The assistant turn is the reply's: its tool_use blocks come back with the same id, name and input, in order. Consecutive turns of one role are one turn, as the real API combines them: a reply echoed as two assistant turns (its text, then its tool calls) is one assistant turn.`,
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const results = await ctx.results(CASE_KEYS);
      const followUps = followUpsOf(results);
      if (followUps.length === 0) throw noFollowUp(results);
      for (const f of followUps) {
        const turn = addedTurns(f)[0];
        const expected = toolUsesOfMessage(f.reply);
        const sent = turn?.blocks.filter((b) => b.type === 'tool_use') ?? [];
        const found = specDifferences(expected, sent);
        if (turn?.role === 'assistant' && found.length === 0) continue;
        throw new CheckFailure(
          sendsOnlyNewTurns(f)
            ? `${f.label}: the reply must come back as an assistant turn after the earlier turns, but ${onlyNewTurnsText(f)}`
            : turn?.role !== 'assistant'
              ? `${f.label}: turn ${newTurnsStart(f) + 1} must be the assistant turn of the reply, but ${turn === undefined ? 'there is no such turn' : `its role is ${JSON.stringify(turn.role)}`}`
              : `${f.label}: the assistant turn must hold the reply's tool_use blocks unchanged; ${found.length} difference(s): ${describeDifferences(found)}`,
          show({ role: 'assistant', tool_use: expected }),
          turn === undefined ? 'no such turn' : show({ role: turn.role, blocks: turn.blocks }),
        );
      }
    },
  },
  {
    id: 'agent.loop.assistant-turn-verbatim',
    clause: `${LOOP} ("append assistant turn to messages")`,
    description:
      'The appended assistant turn is the whole reply content, text blocks included (consecutive assistant turns count as one).',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec names only the tool_use blocks of the appended assistant turn. The real API expects the reply content back as it came (its text blocks, and blocks such as thinking that must be returned), so the whole content should be appended; the real API combines consecutive assistant turns, so the content may come back split over several.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      let judged = 0;
      const results = await ctx.results(CASE_KEYS);
      for (const f of followUpsOf(results)) {
        const turn = addedTurns(f)[0];
        if (turn?.role !== 'assistant') continue; // agent.loop.assistant-turn judges this
        judged++;
        const found = specDifferences(servedBlocks(f.reply), turn.blocks);
        if (found.length === 0) continue;
        throw new CheckFailure(
          `${f.label}: the assistant turn differs from the reply's content; ${found.length} difference(s): ${describeDifferences(found)}`,
          show(servedBlocks(f.reply)),
          show(turn.blocks),
        );
      }
      if (judged === 0) {
        throw new NotExercised(
          `no follow-up request carried an assistant turn to compare${cutBodiesNote(results)}`,
        );
      }
    },
  },
  {
    id: 'agent.loop.ends-without-tool-use',
    clause: `${LOOP} ("reply has no tool_use block for bash: done, loop ends"); target contract, agent (exit 0 when the loop ends)`,
    description:
      'A reply without a bash tool_use ends the loop: no further request, exit status 0 (one call; several calls; a restart request).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every client of the loop: a reply with no tool_use block for bash ends the loop (no further request); the target contract: the agent then exits 0.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const results = await ctx.results(ENDING_CASES);
      const judged = results.filter(workdirReady);
      if (judged.length === 0) {
        throw new NotExercised(
          'the agent created WIRECHECK_WORKDIR in no case that needed it; agent.runner.workdir judges that',
        );
      }
      // A case whose commands had nowhere to run failed them all, and may rightly trip the breaker.
      for (const result of judged) {
        expectRequestCount(
          result,
          result.spec.steps,
          `case ${result.spec.name}: the model answered request ${result.spec.steps} without a tool call, after ${result.spec.steps - 1} repl${result.spec.steps === 2 ? 'y' : 'ies'} with tool calls`,
        );
        expectExit(result, 0, `case ${result.spec.name}: the loop ended, so the agent must exit 0`);
      }
    },
  },
  {
    id: 'agent.loop.ends-whatever-stop-reason',
    clause: `${LOOP} ("reply has no tool_use block for bash: done, loop ends"); Resources: message response (stop_reason); target contract, agent (exit 0 when the loop ends)`,
    description:
      'A reply without a bash tool_use ends the loop whatever its stop_reason: max_tokens (a reply cut at the token bound), or a value the spec does not list (refusal, which the real API sends): no further request, exit status 0.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every client of the loop: what ends the loop is a reply with no tool_use block for bash, not its stop reason; the target contract: the agent then exits 0. A stop reason the spec does not list is a value the real API added, never a failure of the reply.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const judged = (await ctx.results(STOP_REASON_CASES)).filter(workdirReady);
      if (judged.length === 0) {
        throw new NotExercised(
          'the agent created WIRECHECK_WORKDIR in no case that needed it; agent.runner.workdir judges that',
        );
      }
      for (const result of judged) {
        const stop = stopReasonOfLastStep(result);
        expectRequestCount(
          result,
          result.spec.steps,
          `case ${result.spec.name}: the model answered request ${result.spec.steps} with a text and stop_reason ${stop}, no tool call, so the loop ends there`,
        );
        expectExit(
          result,
          0,
          `case ${result.spec.name}: the loop ended (stop_reason ${stop}), so the agent must exit 0`,
        );
      }
    },
  },
  {
    id: 'agent.loop.other-tool-ends',
    clause: `${LOOP} ("reply has no tool_use block for bash: done, loop ends"); target contract, agent (exit 0 when the loop ends)`,
    description: `A reply whose only tool_use is for another tool (${OTHER_TOOL}, never offered) ends the loop: the agent neither crashes, nor runs it as a command, nor goes on asking; what it sent back is reported.`,
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every client of the loop: the loop goes on only while a reply holds a tool_use block for bash; a reply whose only tool_use is for another tool ends it (no further request, nothing run), and the target contract has the agent exit 0.',
    timeoutMs: CHECK_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.result('otherTool');
      const ran = existsSync(join(result.workdir, OTHER_TOOL_MARKER));
      const n = result.requests.length;
      if (!ran) expectNotCutShort(result, 'it could show what it does with another tool', 1);
      if (n === 1 && !ran && result.run.exitCode === 0 && !result.run.timedOut) return;
      throw caseFailure(
        result,
        `the reply's only tool_use was for ${OTHER_TOOL}, not bash: ${otherToolVerdict(result, ran)} (${runContext(result)})`,
        '1 request (the loop ends), nothing run, exit 0',
        `${n} request(s), ${ran ? `ran the input as a command (${OTHER_TOOL_MARKER} was created)` : 'nothing run'}, ${result.run.timedOut ? 'no exit in time' : `exit ${result.run.exitCode ?? `signal ${result.run.signal}`}`}${n > 1 ? `; sent back: ${sentBack(result)}` : ''}`,
      );
    },
  },
];

/**
 * The mock read the request's body: it does not read one it refuses before (refusalOf: for want
 * of the run's key, to a path it does not serve, over the size limit, from a Host it does not
 * answer), so there is nothing of it to judge.
 */
function bodyRead(entry: JournalEntry): boolean {
  return entry.body !== undefined;
}

/** The mock read the request's body and its journal kept all of it (bodyCut): there is a body to judge. */
function bodyWhole(entry: JournalEntry): boolean {
  return bodyRead(entry) && bodyCut(entry) === undefined;
}

/** Every request of the cases whose whole body the journal holds, with its case and its place in it. */
function* readBodies(
  results: readonly AgentCaseResult[],
): Generator<{ result: AgentCaseResult; entry: JournalEntry; index: number }> {
  for (const result of results) {
    for (const [index, entry] of result.requests.entries()) {
      if (bodyWhole(entry)) yield { result, entry, index };
    }
  }
}

/**
 * A request the mock refused with 413 request_too_large, its body unread: over the real API's
 * size limit. Not one whose coded body decoded past the mock's limit (bodyUndecoded): whether
 * the real API takes coded bodies, and counts their size sent or decoded, is not known.
 */
function tooLarge(entry: JournalEntry): boolean {
  return entry.status === 413 && entry.body === undefined && entry.bodyUndecoded === undefined;
}

/**
 * Why no body could be judged: the distinct reasons the mock gave for the requests it refused
 * unread (refusalOf), each shown with its first request, and the cut bodies.
 */
function noBodyRead(results: readonly AgentCaseResult[]): NotExercised {
  const reasons = new Map<string, string>();
  for (const result of results) {
    for (const [i, entry] of result.requests.entries()) {
      if (bodyRead(entry)) continue;
      const refusal = refusalOf(entry);
      // Keyed by what refused it, not its words: a body's size in them differs from case to case.
      const key = refusal === undefined ? entry.outcome : `${entry.status} ${refusal.judgedBy}`;
      if (reasons.has(key)) continue;
      const reason =
        refusal === undefined
          ? `no answer (${entry.outcome})`
          : `status ${entry.status}: ${refusal.why}; ${refusal.judgedBy}`;
      reasons.set(key, `case ${result.spec.name}, request ${i + 1}: ${reason}`);
    }
  }
  const listed = [...reasons.values()].slice(0, 3);
  const refused = `${listed.join(' | ')}${reasons.size > 3 ? ` | ${reasons.size - 3} other reason(s)` : ''}`;
  const cut = cutBodiesNote(results);
  return new NotExercised(
    cut === ''
      ? `the mock read no request body: it refused every request before reading it (${refused})`
      : `no whole request body to judge${cut}${reasons.size === 0 ? '' : `; the mock refused any other before reading it (${refused})`}`,
  );
}

function noFollowUp(results: readonly AgentCaseResult[]): NotExercised {
  return new NotExercised(
    `no follow-up request reached the mock (in no case did the agent answer a reply with tool calls)${cutBodiesNote(results)}`,
  );
}

/** What the agent did wrong with the other tool, in words. */
function otherToolVerdict(result: AgentCaseResult, ran: boolean): string {
  const n = result.requests.length;
  const parts: string[] = [];
  if (ran) parts.push('the agent ran its input as a bash command');
  if (n > 1) {
    parts.push(
      n >= result.spec.steps
        ? `the agent went on for ${n} requests, answering the tool every time the model asked (it would spin for as long as a model asks)`
        : `the agent went on and sent ${n} requests`,
    );
  }
  const refused = refusedRequest(result);
  if (result.run.timedOut) parts.push('the agent did not exit within the case budget');
  else if (result.run.exitCode !== 0)
    parts.push(
      `the agent exited ${result.run.exitCode ?? `on signal ${result.run.signal}`}${refused === undefined ? ' (crashed?)' : ` once the mock refused request ${refused.index + 1}`}`,
    );
  return parts.join('; ');
}

/** The new turns of the second request: what the agent answered the other tool with. */
function sentBack(result: AgentCaseResult): string {
  const earlier = result.requests[0] === undefined ? undefined : turnsOf(result.requests[0]);
  const second = result.requests[1] === undefined ? undefined : turnsOf(result.requests[1]);
  if (earlier === undefined || second === undefined) return 'a request without readable messages';
  // A request no longer than the first sent only its new turns (agent.loop.history-kept).
  return show(second.length > earlier.length ? second.slice(earlier.length) : second) ?? 'nothing';
}
