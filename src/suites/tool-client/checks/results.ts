import { type Check, CheckFailure, show } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import { describeDifferences, differences } from '../../../protocol/compare.js';
import { METHODS, normalizeCallToolParams, ToolsCallParams } from '../../../protocol/mcp/index.js';
import { arbRoundTrip } from '../arbitraries.js';
import { type CaseResult, SLOW_CASE_WAIT_MS, type ToolClientCtx } from '../context.js';
import { evidenceOf, expectPrintedResult, expectReached, expectRequest, expectTraffic } from '../expect.js';
import { excuseIfPlainCallFails, expectResultUnbroken } from '../plain-call.js';
import type { ToolTransport } from '../target.js';
import { CASE_BUDGET_MS, echoWithFaults, idOf, PROPERTY_BUDGET_MS } from './common.js';

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
  const actual = normalizeCallToolParams({ name: params.data.name, arguments: params.data.arguments });
  const found = differences(normalizeCallToolParams(expected), actual);
  if (found.length > 0) {
    throw new CheckFailure(
      `${what}: tools/call does not carry the tool and arguments given on stdin: ${describeDifferences(found)}`,
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
      clause:
        'target contract (README), tool-client: the client prints the tools/call result JSON on stdout, exit 0',
      description: 'The client prints exactly the result the mock returned for the call and exits 0.',
      level: 'must',
      basis: 'contract',
      rule: 'The target contract: the client prints the tools/call result JSON on stdout and exits 0. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectPrintedResult(result, 'echo call');
      },
    },
    {
      id: idOf(t, 'arguments.as-given'),
      clause: 'Tool server, SSE transport: call a tool by name with an arguments object',
      description: 'tools/call carries the tool name and the arguments from stdin, unchanged.',
      level: 'must',
      basis: 'spec',
      rule: 'The spec: a tool is called by name with an arguments object; the client sends the tool and arguments it was given, unchanged (the target contract gives them on stdin). Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'echo call');
        expectCallAsGiven(result, 'echo call');
      },
    },
    {
      id: idOf(t, 'arguments.absent'),
      clause: "Tool server, SSE transport: a tool's arguments may be absent and then count as empty",
      description:
        'With no arguments on stdin the client calls the tool (arguments absent or {}) and prints the result.',
      level: 'must',
      basis: 'spec',
      rule: "The spec: a tool's arguments may be absent and then count as empty; a client given none sends none or {} and still calls the tool. Every tool client.",
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: {},
          input: { tool: 'echo' },
          signal: env.signal,
        });
        expectTraffic(result, 'call without arguments');
        expectCallAsGiven(result, 'call without arguments');
        await excuseIfPlainCallFails(ctx, result, 'call without arguments');
        await expectResultUnbroken(ctx, result, 'call without arguments');
      },
    },
    {
      id: idOf(t, 'result.round-trip'),
      clause:
        'target contract (README), tool-client: the printed result is the tools/call result; Tool-server objects: Tool call result',
      description:
        'Random tool names, arguments and results (Unicode, nesting, isError, extra fields) round-trip exactly through the client.',
      level: 'must',
      basis: 'contract',
      rule: 'The target contract: the printed result is the tools/call result, for any tool name, arguments and result (Unicode, nesting, isError, fields the spec does not show). Every tool client.',
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
      basis: 'protocol-should',
      rule: 'MCP 2024-11-05 lets a server send notifications; one a client does not know is ignored (JSON-RPC gives notifications no reply). Not stated as a MUST, hence a warning.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await echoWithFaults(ctx, env, t, { notifications: 2 });
        expectReached(result, 'unknown notifications');
        await excuseIfPlainCallFails(ctx, result, 'unknown notifications before every reply');
        await expectResultUnbroken(ctx, result, 'unknown notifications before every reply');
      },
    },
    {
      id: idOf(t, 'notifications.cancel-progress-tolerated'),
      clause:
        'MCP 2024-11-05 utilities (not shown in the spec): notifications/progress and notifications/cancelled; stray ones are ignored',
      description:
        'notifications/progress and notifications/cancelled about the in-flight call, sent before its reply, do not break the client.',
      level: 'should',
      basis: 'protocol-should',
      rule: 'MCP 2024-11-05: a receiver SHOULD ignore a cancellation it cannot act on, and progress notifications only inform; a client that breaks on either fails servers that send them. A warning.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await echoWithFaults(ctx, env, t, { lifecycleNotifications: true });
        expectReached(result, 'progress and cancellation');
        await excuseIfPlainCallFails(ctx, result, 'progress and cancellation before the reply');
        await expectResultUnbroken(ctx, result, 'progress and cancellation before the reply');
      },
    },
    {
      id: idOf(t, 'result.slow-reply'),
      // Its case waits on replies that each take 1.5 s: the wait overlaps other checks.
      schedule: 'waits',
      prescribedWaitMs: SLOW_CASE_WAIT_MS,
      clause:
        'Spec silent on client timeouts; Limits: keep-alive 15 s implies replies may take seconds (should)',
      description: 'Replies that each take 1.5 s still lead to the right result.',
      level: 'should',
      basis: 'protocol-should',
      rule: 'The spec sets no client timeout, and its 15 s keep-alive implies replies may take seconds; a client that gives up after a second fails real servers (each reply here takes 1.5 s, clear of a one-second timer). A warning.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.slow(t, env);
        expectReached(result, 'slow replies');
        await excuseIfPlainCallFails(ctx, result, 'slow replies');
        await expectResultUnbroken(ctx, result, 'slow replies');
      },
    },
  ];
}
