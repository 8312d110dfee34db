import { type Check, CheckFailure, show } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import { METHODS, ToolsCallParams } from '../../../protocol/mcp/index.js';
import { firstDifference } from '../../messages-client/compare.js';
import { arbRoundTrip } from '../arbitraries.js';
import { type CaseResult, ECHO_INPUT, type ToolClientCtx } from '../context.js';
import { evidenceOf, expectPrintedResult, expectRequest } from '../expect.js';
import type { ToolTransport } from '../target.js';
import { CASE_BUDGET_MS, idOf, PROPERTY_BUDGET_MS } from './common.js';

/** The tools/call the client sent names the tool of stdin and carries its arguments unchanged. */
function expectCallAsGiven(result: CaseResult, what: string): void {
  const { request, entry } = expectRequest(result, METHODS.toolsCall, what);
  const params = ToolsCallParams.safeParse(request.params);
  const expected = { name: result.input.tool, arguments: result.input.arguments ?? {} };
  if (!params.success) {
    throw new CheckFailure(
      `${what}: tools/call params are not {name, arguments?}`,
      show(expected),
      show(request.params),
      evidenceOf(result, what, entry.seq),
    );
  }
  // Spec: absent arguments count as empty, so a client may send {} or leave them out.
  const actual = { name: params.data.name, arguments: params.data.arguments ?? {} };
  const difference = firstDifference(expected, actual);
  if (difference !== undefined) {
    throw new CheckFailure(
      `${what}: tools/call does not carry the tool and arguments given on stdin (${difference})`,
      show(expected),
      show(actual),
      evidenceOf(result, what, entry.seq),
    );
  }
}

/** The call itself: arguments out, the result back, on a clean session and on a few harder ones. */
export function resultChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'result.printed'),
      clause: 'TARGETS tool-client: the client prints the tools/call result JSON on stdout, exit 0',
      description: 'The client prints exactly the result the mock returned for the call and exits 0.',
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        expectPrintedResult(await ctx.shared.basic(t), 'echo call');
      },
    },
    {
      id: idOf(t, 'arguments.as-given'),
      clause: 'Tool server, SSE transport: call a tool by name with an arguments object',
      description: 'tools/call carries the tool name and the arguments from stdin, unchanged.',
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        expectCallAsGiven(await ctx.shared.basic(t), 'echo call');
      },
    },
    {
      id: idOf(t, 'arguments.absent'),
      clause: "Tool server, SSE transport: a tool's arguments may be absent and then count as empty",
      description:
        'With no arguments on stdin the client calls the tool (arguments absent or {}) and prints the result.',
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: {},
          input: { tool: 'echo' },
          signal: env.signal,
        });
        expectCallAsGiven(result, 'call without arguments');
        expectPrintedResult(result, 'call without arguments');
      },
    },
    {
      id: idOf(t, 'result.round-trip'),
      clause:
        'TARGETS tool-client: the printed result is the tools/call result; Tool-server objects: Tool call result',
      description:
        'Random tool names, arguments and results (Unicode, nesting, isError, extra fields) round-trip exactly through the client.',
      level: 'must',
      timeoutMs: PROPERTY_BUDGET_MS,
      async run(ctx, env) {
        await checkProperty(
          env,
          arbRoundTrip,
          async (trip) => {
            const result = await ctx.runCase({
              transport: t,
              scenario: { tools: [trip.tool], calls: { [trip.tool.name]: { result: trip.result } } },
              input:
                trip.arguments === undefined
                  ? { tool: trip.tool.name }
                  : { tool: trip.tool.name, arguments: trip.arguments },
              signal: env.signal,
            });
            expectCallAsGiven(result, 'random call');
            expectPrintedResult(result, 'random call');
          },
          { runs: ctx.commandRuns(env) },
        );
      },
    },
    {
      id: idOf(t, 'notifications.unknown-tolerated'),
      clause:
        'MCP 2024-11-05 (not shown in the spec): a server may send notifications at any time; unknown ones are ignored (real servers send e.g. list_changed unasked)',
      description:
        'Unsolicited notifications with unknown methods before every reply do not disturb the call.',
      level: 'should',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: { faults: { notifications: 2 } },
          input: ECHO_INPUT,
          signal: env.signal,
        });
        expectPrintedResult(result, 'unknown notifications before every reply');
      },
    },
    {
      id: idOf(t, 'result.slow-reply'),
      clause:
        'Spec silent on client timeouts; Limits: keep-alive 15 s implies replies may take seconds (should)',
      description: 'Replies that each take a second still lead to the right result.',
      level: 'should',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: { faults: { replyDelayMs: 1000 } },
          input: ECHO_INPUT,
          signal: env.signal,
        });
        expectPrintedResult(result, 'slow replies');
      },
    },
  ];
}
