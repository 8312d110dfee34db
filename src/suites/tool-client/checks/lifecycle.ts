import { type Check, CheckFailure } from '../../../harness/check.js';
import {
  answerTo,
  clientRequests,
  duplicateIds,
  lifecycleViolation,
  MOCK_REQUEST_ID_BASE,
} from '../../../mocks/tools/index.js';
import { classifyMessage } from '../../../protocol/jsonrpc/index.js';
import type { CaseResult, ToolClientCtx } from '../context.js';
import { evidenceOf, expectPrintedResult } from '../expect.js';
import { describeToolClientRun } from '../output.js';
import type { ToolTransport } from '../target.js';
import { CASE_BUDGET_MS, idOf } from './common.js';

function expectUniqueIds(result: CaseResult): void {
  const dup = duplicateIds(result.journal)[0];
  if (dup === undefined) return;
  throw new CheckFailure(
    `request id ${JSON.stringify(dup.id)} was used ${dup.entries.length} times in one session`,
    'a different id for every request of a session',
    dup.entries.map((e) => e.text).join(' | '),
    evidenceOf(result, 'request ids', dup.entries[1]?.seq),
  );
}

/** The session's order, its ids and the answer to the server's ping. */
export function lifecycleChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'lifecycle.initialized-first'),
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): initialize first, then the notifications/initialized notification (MUST) before any request other than ping',
      description:
        'initialize is the first request and notifications/initialized precedes every other request but ping.',
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        const violation = lifecycleViolation(result.journal);
        if (violation !== undefined) {
          throw new CheckFailure(
            violation.reason,
            'initialize, then notifications/initialized, then other requests',
            violation.entry.text,
            evidenceOf(result, 'lifecycle', violation.entry.seq),
          );
        }
        if (clientRequests(result.journal).length === 0) {
          throw new CheckFailure(
            `the client sent no request (${describeToolClientRun(result.run)})`,
            'initialize, notifications/initialized, tools/call',
            'nothing',
            evidenceOf(result, 'lifecycle'),
          );
        }
      },
    },
    {
      id: idOf(t, 'ids.unique'),
      clause:
        'Tool-server objects: JSON-RPC request id (JSON-RPC 2.0: an id identifies one request of a session)',
      description: 'The client never reuses a request id within a session.',
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        expectUniqueIds(await ctx.shared.basic(t));
        expectUniqueIds(await ctx.shared.ping(t));
      },
    },
    {
      id: idOf(t, 'ids.integer'),
      clause:
        'Tool-server objects: JSON-RPC request id: integer (JSON-RPC 2.0 and MCP also allow strings, hence should)',
      description: "The client uses integer request ids, as the spec's table shows.",
      level: 'should',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        for (const { request, entry } of clientRequests(result.journal)) {
          if (!Number.isInteger(request.id)) {
            throw new CheckFailure(
              `request ${request.method} has id ${JSON.stringify(request.id)}, not an integer`,
              'an integer id',
              JSON.stringify(request.id),
              evidenceOf(result, 'request ids', entry.seq),
            );
          }
        }
      },
    },
    {
      id: idOf(t, 'ping.answered'),
      clause:
        'Tool-server SSE events: keep-alive may be a JSON-RPC ping request (MCP 2024-11-05 ping: the receiver MUST respond promptly with an empty result)',
      description:
        'A ping request from the server is answered with an empty result and the same id, and the call still succeeds.',
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.ping(t);
        const pingId = MOCK_REQUEST_ID_BASE;
        const pinged = result.journal.some(
          (e) => e.direction === 'sent' && classifyMessage(e.value).kind === 'request',
        );
        if (!pinged) {
          throw new CheckFailure(
            `the client never called tools/call, so the mock had no chance to ping it (${describeToolClientRun(result.run)})`,
            'a tools/call request',
            'none',
            evidenceOf(result, 'ping'),
          );
        }
        const answer = answerTo(result.journal, pingId);
        if (answer === undefined) {
          throw new CheckFailure(
            `the client did not answer the server's ping (id ${pingId}) within ${result.scenario.faults.pingWaitMs} ms`,
            `{"jsonrpc":"2.0","id":${pingId},"result":{}}`,
            'no answer',
            evidenceOf(result, 'ping'),
          );
        }
        const c = classifyMessage(answer.value);
        if (c.kind !== 'success' || Object.keys(c.message.result).length !== 0) {
          throw new CheckFailure(
            'the answer to the ping is not an empty result',
            `{"jsonrpc":"2.0","id":${pingId},"result":{}}`,
            answer.text,
            evidenceOf(result, 'ping', answer.seq),
          );
        }
        expectPrintedResult(result, 'after a ping');
      },
    },
  ];
}
