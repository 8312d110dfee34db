import { type Check, CheckFailure } from '../../../harness/check.js';
import {
  answerTo,
  clientMessages,
  clientRequests,
  duplicateIds,
  lifecycleViolation,
  MOCK_REQUEST_ID_BASE,
  type ToolJournalEntry,
} from '../../../mocks/tools/index.js';
import { bodyMessages, classifyMessage } from '../../../protocol/jsonrpc/index.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import { type CaseResult, SLOW_CASE_WAIT_MS, type ToolClientCtx } from '../context.js';
import { describeCase, evidenceOf, expectCallSent, expectFinished, expectTraffic } from '../expect.js';
import { excuseIfPlainCallFails } from '../plain-call.js';
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

/**
 * The first client message sent before the mock's initialize result went out (the
 * initialized notification or a request other than ping), or undefined. Judged in each
 * session that an initialize opened (a probe session that ended unanswered holds nothing
 * early); over the whole journal when the client sent no initialize.
 */
export function earlyMessage(result: CaseResult) {
  const inits = clientRequests(result.journal, METHODS.initialize);
  for (const init of inits.length === 0 ? [undefined] : inits) {
    const session = init?.entry.session;
    const answer =
      init === undefined
        ? undefined
        : result.journal.find((e) => {
            if (e.direction !== 'sent' || e.kind !== 'message' || e.session !== session) return false;
            const c = classifyMessage(e.value);
            return c.kind === 'success' && c.message.id === init.request.id;
          });
    for (const entry of clientMessages(result.journal)) {
      if (session !== undefined && entry.session !== session) continue;
      if (answer !== undefined && entry.seq > answer.seq) break;
      if (isEarly(entry)) return entry;
    }
  }
  return undefined;
}

/** A message only allowed after the initialize result (a batch's messages one by one). */
function isEarly(entry: ToolJournalEntry): boolean {
  return bodyMessages(entry.value).some(
    (c) =>
      (c.kind === 'notification' && c.message.method === METHODS.initialized) ||
      (c.kind === 'request' && c.message.method !== METHODS.initialize && c.message.method !== METHODS.ping),
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
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: initialization is the first interaction, and after it succeeds the client MUST send the initialized notification before normal operation. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'lifecycle');
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
            `the client sent no request (${describeCase(result)})`,
            'initialize, notifications/initialized, tools/call',
            'nothing',
            evidenceOf(result, 'lifecycle'),
          );
        }
      },
    },
    {
      id: idOf(t, 'lifecycle.initialize-awaited'),
      // Its case waits on replies that each take a second: the wait overlaps other checks.
      schedule: 'waits',
      prescribedWaitMs: SLOW_CASE_WAIT_MS,
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): the initialized notification is sent after successful initialization',
      description:
        'With replies taking a second, the client sends notifications/initialized and every request but ping only after the initialize result arrived.',
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: the client MUST send the initialized notification after initialization succeeded, that is after the initialize result, and SHOULD NOT send other requests before it; a client that does not wait talks to a server that has not agreed on a version yet. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.slow(t, env);
        expectTraffic(result, 'initialize awaited');
        const early = earlyMessage(result);
        if (early !== undefined) {
          throw new CheckFailure(
            `the client sent ${early.text.slice(0, 200)} before the initialize result arrived`,
            'notifications/initialized and requests only after the initialize result',
            early.text,
            evidenceOf(result, 'initialize awaited', early.seq),
          );
        }
        if (clientRequests(result.journal, METHODS.initialize).length === 0) {
          throw new CheckFailure(
            `the client sent no initialize (${describeCase(result)})`,
            'an initialize request',
            'none',
            evidenceOf(result, 'initialize awaited'),
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
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: a request id MUST NOT have been used before by the requestor in the same session (JSON-RPC matches replies by id). Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const basic = await ctx.shared.basic(t);
        expectTraffic(basic, 'request ids');
        expectUniqueIds(basic);
        expectUniqueIds(await ctx.shared.ping(t, env));
      },
    },
    {
      id: idOf(t, 'ids.integer'),
      clause:
        'Tool-server objects: JSON-RPC request id: integer (JSON-RPC 2.0 and MCP also allow strings, hence should)',
      description: "The client uses integer request ids, as the spec's table shows.",
      level: 'should',
      basis: 'spec-reference',
      rule: "The spec's table shows integer request ids, as the reference client sends them; JSON-RPC 2.0 and MCP allow strings too, so a string id is a warning.",
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'request ids');
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
        'A ping request from the server is answered with an empty result and the same id, and the client still finishes the call.',
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: the receiver of a ping request MUST answer promptly with an empty result; the spec names a JSON-RPC ping among the keep-alives a server sends. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.ping(t, env);
        expectTraffic(result, 'ping');
        const pingId = MOCK_REQUEST_ID_BASE;
        // The mock pings once the call arrives: without one there is no ping to judge.
        expectCallSent(result, 'ping');
        const answer = answerTo(result.journal, pingId);
        if (answer === undefined) {
          throw new CheckFailure(
            `the client did not answer the server's ping (id ${pingId}) within ${result.scenario.faults.pingWaitMs} ms`,
            `{"jsonrpc":"2.0","id":${pingId},"result":{}}`,
            'no answer',
            evidenceOf(result, 'ping'),
          );
        }
        const reply = answer.answer;
        // MCP: the empty result is a Result, which may carry `_meta`.
        if (reply.kind !== 'success' || Object.keys(reply.message.result).some((k) => k !== '_meta')) {
          throw new CheckFailure(
            `the answer to the ping is not an empty result: ${answer.text}`,
            `{"jsonrpc":"2.0","id":${pingId},"result":{}}`,
            answer.text,
            evidenceOf(result, 'ping', answer.seq),
          );
        }
        await excuseIfPlainCallFails(ctx, result, 'after a ping');
        expectFinished(result, 'after a ping');
      },
    },
  ];
}
