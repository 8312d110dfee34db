import { type Check, CheckFailure, show } from '../../../harness/check.js';
import { BASH_TOOL_TYPES } from '../../../protocol/messages/index.js';
import { firstDifference } from '../../messages-client/compare.js';
import { CASE_KEYS, type CaseKey } from '../cases.js';
import type { AgentCtx } from '../context.js';
import {
  describeRequest,
  followUpsOf,
  historyDifference,
  servedBlocks,
  textOfTurn,
  toolUsesOfMessage,
  turnsOf,
} from '../conversation.js';
import {
  ALL_CASES_BUDGET_MS,
  CASE_BUDGET_MS,
  expectExit,
  expectRequestCount,
  runContext,
} from '../expect.js';

/** Cases whose scripted model ends with a text reply inside the cap: the loop must end there. */
const ENDING_CASES: readonly CaseKey[] = ['oneCall', 'severalCalls', 'restart'];

function isBashTool(tool: unknown): boolean {
  const t = (tool ?? {}) as { type?: unknown; name?: unknown };
  return t.name === 'bash' && (BASH_TOOL_TYPES as readonly unknown[]).includes(t.type);
}

export const loopChecks: Check<AgentCtx>[] = [
  {
    id: 'agent.loop.first-request',
    clause: 'Tool-use loop; Turn; TARGETS agent: stdin is the user prompt',
    description: 'The first request ends with a user turn carrying the prompt given on stdin.',
    level: 'must',
    timeoutMs: ALL_CASES_BUDGET_MS,
    async run(ctx) {
      for (const result of await ctx.results(CASE_KEYS)) {
        const first = result.requests[0];
        if (first === undefined) {
          throw new CheckFailure(
            `the agent sent no request (${runContext(result)})`,
            'POST /v1/messages',
            'none',
          );
        }
        const last = turnsOf(first)?.at(-1);
        if (last?.role !== 'user' || !textOfTurn(last).includes(result.spec.prompt)) {
          throw new CheckFailure(
            `case ${result.spec.name}: the first request must end with the user's prompt as a user turn`,
            `a user turn with the text ${JSON.stringify(result.spec.prompt)}`,
            show(last),
          );
        }
      }
    },
  },
  {
    id: 'agent.loop.tools-every-request',
    clause:
      'Endpoints: follow-up turn ("tools is sent again on every request"); Built-in shell tool definition',
    description:
      'Every request offers the bash tool in `tools` ({"type":"bash_20250124"|"bash_20241022","name":"bash"}).',
    level: 'must',
    timeoutMs: ALL_CASES_BUDGET_MS,
    async run(ctx) {
      for (const result of await ctx.results(CASE_KEYS)) {
        result.requests.forEach((entry, i) => {
          const tools = (entry.body as { tools?: unknown } | undefined)?.tools;
          if (Array.isArray(tools) && tools.some(isBashTool)) return;
          throw new CheckFailure(
            `case ${result.spec.name}, request ${i + 1}: the bash tool must be sent on every request`,
            'tools: [{"type":"bash_20250124","name":"bash"}, ...]',
            tools === undefined ? 'no tools field' : show(tools),
          );
        });
      }
    },
  },
  {
    id: 'agent.loop.requests-valid',
    clause: 'Content blocks; Endpoints: follow-up turn (the conversation rules the real API enforces)',
    description:
      'Every request is a valid body the service accepts: each tool_result answers a tool_use of the turn right before it, none left unanswered.',
    level: 'must',
    timeoutMs: ALL_CASES_BUDGET_MS,
    async run(ctx) {
      for (const result of await ctx.results(CASE_KEYS)) {
        const refused = result.requests.findIndex((entry) => entry.bodyError !== undefined);
        if (refused === -1) continue;
        throw new CheckFailure(
          `case ${result.spec.name}: the mock refused request ${refused + 1} as the real API would`,
          'a valid request body',
          describeRequest(result.requests[refused]!, refused),
        );
      }
    },
  },
  {
    id: 'agent.loop.history-kept',
    clause: 'Endpoints: follow-up turn ("the earlier turns plus the assistant turn ... plus a user turn")',
    description: 'Each follow-up request starts with every turn of the request before it, unchanged.',
    level: 'must',
    timeoutMs: ALL_CASES_BUDGET_MS,
    async run(ctx) {
      for (const f of followUpsOf(await ctx.results(CASE_KEYS))) {
        const difference = historyDifference(f);
        if (difference === undefined) continue;
        throw new CheckFailure(
          `${f.label}: the earlier turns must be sent again unchanged; first difference at ${difference}`,
          show(f.earlier),
          show(f.turns.slice(0, f.earlier.length)),
        );
      }
    },
  },
  {
    id: 'agent.loop.assistant-turn',
    clause: 'Tool-use loop: "append assistant turn to messages"; Endpoints: follow-up turn',
    description:
      'After the earlier turns comes the assistant turn of the reply, holding its tool_use blocks unchanged (id, name, input, in order).',
    level: 'must',
    timeoutMs: ALL_CASES_BUDGET_MS,
    async run(ctx) {
      for (const f of followUpsOf(await ctx.results(CASE_KEYS))) {
        const turn = f.turns[f.earlier.length];
        const expected = toolUsesOfMessage(f.reply);
        const sent = turn?.blocks.filter((b) => b.type === 'tool_use');
        if (turn?.role === 'assistant' && firstDifference(expected, sent) === undefined) continue;
        throw new CheckFailure(
          `${f.label}: turn ${f.earlier.length + 1} must be the assistant turn of the reply with its tool_use blocks`,
          show({ role: 'assistant', tool_use: expected }),
          show(turn ?? 'no such turn'),
        );
      }
    },
  },
  {
    id: 'agent.loop.assistant-turn-verbatim',
    clause: 'Tool-use loop: "append assistant turn to messages"',
    description: 'The appended assistant turn is the whole reply content, text blocks included.',
    level: 'should',
    timeoutMs: ALL_CASES_BUDGET_MS,
    async run(ctx) {
      for (const f of followUpsOf(await ctx.results(CASE_KEYS))) {
        const turn = f.turns[f.earlier.length];
        if (turn?.role !== 'assistant') continue; // agent.loop.assistant-turn judges this
        const difference = firstDifference(servedBlocks(f.reply), turn.blocks);
        if (difference === undefined) continue;
        throw new CheckFailure(
          `${f.label}: the assistant turn differs from the reply's content at ${difference}`,
          show(servedBlocks(f.reply)),
          show(turn.blocks),
        );
      }
    },
  },
  {
    id: 'agent.loop.ends-without-tool-use',
    clause: 'Tool-use loop: "reply has no tool_use block for bash: done, loop ends"; TARGETS agent: exit 0',
    description:
      'A reply without a bash tool_use ends the loop: no further request, exit status 0 (one call; several calls; a restart request).',
    level: 'must',
    timeoutMs: ENDING_CASES.length * CASE_BUDGET_MS,
    async run(ctx) {
      for (const result of await ctx.results(ENDING_CASES)) {
        expectRequestCount(
          result,
          result.spec.steps,
          `case ${result.spec.name}: the model answered request ${result.spec.steps} without a tool call, after ${result.spec.steps - 1} repl${result.spec.steps === 2 ? 'y' : 'ies'} with tool calls`,
        );
        expectExit(result, 0, `case ${result.spec.name}: the loop ended, so the agent must exit 0`);
      }
    },
  },
];
