import { type Check, type CheckEnv, CheckFailure, NotExercised } from '../../../harness/check.js';
import {
  answerTo,
  clientMessages,
  clientRequests,
  duplicateIds,
  initializeAnswer,
  type LifecycleViolation,
  lifecycleViolation,
  MOCK_REQUEST_ID_BASE,
  type ToolJournalEntry,
  UNNAMED_SESSION,
} from '../../../mocks/tools/index.js';
import { bodyMessages } from '../../../protocol/jsonrpc/index.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import { type CaseResult, SLOW_CASE_WAIT_MS, type ToolClientCtx } from '../context.js';
import { describeCase, evidenceOf, expectCallSent, expectTraffic } from '../expect.js';
import { excuseIfPlainCallFails, expectResultUnbroken } from '../plain-call.js';
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
 * The most requests the client sent in one session of the case: ids are compared within a
 * session (as duplicateIds does), so below two no id could have been reused.
 */
function mostRequestsInOneSession(result: CaseResult): number {
  const counts = new Map<string, number>();
  for (const { entry } of clientRequests(result.journal)) {
    counts.set(entry.session, (counts.get(entry.session) ?? 0) + 1);
  }
  return Math.max(0, ...counts.values());
}

/** What a message sent before the initialize result is judged for (earlyMessage). */
export type EarlyKind = 'initialized' | 'request';

/**
 * The first client message of `kind` that reached the mock before its initialize result went
 * out: the initialized notification (`initialized`), or a request other than initialize and
 * ping (`request`); undefined when none did. Judged in each session that an initialize opened
 * (a probe session that ended unanswered holds nothing early); over the whole journal when the
 * client sent no initialize. A message that arrived before the result was sent was sent before
 * the client could have read it, whatever the transport: arrival order can only excuse here.
 * Over Streamable HTTP the session id comes with the initialize result, so a message sent
 * before it names no session: one that arrived after an initialize and before its result
 * belongs to that initialize's session.
 */
export function earlyMessage(result: CaseResult, kind: EarlyKind) {
  const inits = clientRequests(result.journal, METHODS.initialize);
  for (const init of inits.length === 0 ? [undefined] : inits) {
    const session = init?.entry.session;
    const answer = init === undefined ? undefined : initializeAnswer(result.journal, init.entry);
    for (const entry of clientMessages(result.journal)) {
      if (answer !== undefined && entry.seq > answer.seq) break;
      const unnamed = entry.session === UNNAMED_SESSION && init !== undefined && entry.seq > init.entry.seq;
      if (session !== undefined && entry.session !== session && !unnamed) continue;
      if (isEarly(entry, kind)) return entry;
    }
  }
  return undefined;
}

/** Whether the client sent notifications/initialized at all (a batch's messages one by one). */
function sentInitialized(result: CaseResult): boolean {
  return clientMessages(result.journal).some((entry) => isEarly(entry, 'initialized'));
}

/** A message only allowed after the initialize result (a batch's messages one by one). */
function isEarly(entry: ToolJournalEntry, kind: EarlyKind): boolean {
  return bodyMessages(entry.value).some((c) =>
    kind === 'initialized'
      ? c.kind === 'notification' && c.message.method === METHODS.initialized
      : c.kind === 'request' && c.message.method !== METHODS.initialize && c.message.method !== METHODS.ping,
  );
}

/**
 * Fails the client for `found`, the basic case's break of the lifecycle order, unless it may
 * be a request pipelined before the initialize result that merely arrived after the result
 * went out (the mock answers at once there). Such a break is confirmed in the slow case,
 * where the result takes a second: a request that arrives after the result there and before
 * notifications/initialized fails; a client that shows only pipelined requests there (sent
 * before the result, a SHOULD NOT judged by lifecycle.requests-after-initialize-result) is
 * not failed for the basic case's order. A request that overtook the notification while both
 * HTTP requests were in flight (`overlapped`) shows no order: it fails only where the slow
 * case shows a break without overlap, and is not exercised when both cases overlap.
 */
async function expectOrderKept(
  ctx: ToolClientCtx,
  env: CheckEnv,
  t: ToolTransport,
  basic: CaseResult,
  found: LifecycleViolation,
): Promise<void> {
  const fail = (result: CaseResult, violation: LifecycleViolation, note = '') => {
    throw new CheckFailure(
      `${violation.reason}${note}`,
      'initialize, then notifications/initialized, then other requests',
      violation.entry.text,
      evidenceOf(result, 'lifecycle', violation.entry.seq),
    );
  };
  if (found.kind === 'order') fail(basic, found);
  const slow = await ctx.shared.slow(t, env);
  const confirmed = lifecycleViolation(slow.journal);
  if (confirmed !== undefined && confirmed.kind !== 'overlapped') {
    fail(
      slow,
      confirmed,
      confirmed.kind === 'after-result'
        ? ' (the initialize result took a second to come, so the client had it)'
        : '',
    );
  }
  const pipelined = earlyMessage(slow, 'request') ?? earlyMessage(basic, 'request');
  if (pipelined !== undefined) return;
  if (found.kind !== 'overlapped') fail(basic, found);
  if (confirmed !== undefined) {
    throw new NotExercised(
      `${confirmed.reason}; with replies taking 1.5 s as well: which the client sent first is not shown (${describeCase(slow)})`,
    );
  }
}

/** The session's order, its ids and the answer to the server's ping. */
export function lifecycleChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'lifecycle.initialized-first'),
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): initialize first, then the notifications/initialized notification (MUST) before any request other than ping',
      description:
        "initialize is the first request, and once its result arrived notifications/initialized precedes every other request but ping (a request pipelined before the result is lifecycle.requests-after-initialize-result's; over HTTP, a request that overtook a notification whose POST began to arrive first shows no order and is not judged).",
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: initialization is the first interaction, and after it succeeds the client MUST send the initialized notification before normal operation. A request the client sent before the initialize result arrived is not judged here: MCP says only that the client SHOULD NOT send it. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'lifecycle');
        const violation = lifecycleViolation(result.journal);
        if (violation !== undefined) await expectOrderKept(ctx, env, t, result, violation);
        const requests = clientRequests(result.journal);
        if (requests.length === 0) {
          throw new CheckFailure(
            `the client sent no request (${describeCase(result)})`,
            'initialize, notifications/initialized, tools/call',
            'nothing',
            evidenceOf(result, 'lifecycle'),
          );
        }
        const operated = requests.some(
          ({ request }) => request.method !== METHODS.initialize && request.method !== METHODS.ping,
        );
        if (!operated && !sentInitialized(result)) {
          throw new NotExercised(
            `the client sent initialize and then neither notifications/initialized nor any other request (${describeCase(result)}): it stopped before normal operation, so there is no order to judge (${idOf(t, 'result.printed')} judges the missing call)`,
          );
        }
      },
    },
    {
      id: idOf(t, 'lifecycle.initialize-awaited'),
      // Its case waits on replies that each take 1.5 s: the wait overlaps other checks.
      schedule: 'waits',
      prescribedWaitMs: SLOW_CASE_WAIT_MS,
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): the initialized notification is sent after successful initialization',
      description:
        'With replies taking 1.5 s, the client sends notifications/initialized only after the initialize result arrived (a client that sends no initialize, or never sends notifications/initialized, is not exercised here: lifecycle.initialized-first judges those).',
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: after successful initialization, that is after the initialize result, the client MUST send the initialized notification; sent before the result, it tells a server that has not agreed on a version yet that the client is ready. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.slow(t, env);
        expectTraffic(result, 'initialize awaited');
        // Without an initialize there is no result to wait for: what such a client sent (the
        // notification among it) came before initialize, which initialized-first fails, once.
        if (clientRequests(result.journal, METHODS.initialize).length === 0) {
          throw new NotExercised(
            `the client sent no initialize (${describeCase(result)}), so no initialize result to wait for: ${idOf(t, 'lifecycle.initialized-first')} judges a session that does not begin with initialize`,
          );
        }
        const early = earlyMessage(result, 'initialized');
        if (early !== undefined) {
          throw new CheckFailure(
            `the client sent ${early.text.slice(0, 200)} before the initialize result arrived`,
            'notifications/initialized only after the initialize result',
            early.text,
            evidenceOf(result, 'initialize awaited', early.seq),
          );
        }
        if (!sentInitialized(result)) {
          throw new NotExercised(
            `the client never sent notifications/initialized (${describeCase(result)}): nothing was sent early, and ${idOf(t, 'lifecycle.initialized-first')} judges its absence once the client goes on to other requests`,
          );
        }
      },
    },
    {
      id: idOf(t, 'lifecycle.requests-after-initialize-result'),
      // The slow case of initialize-awaited: replies take 1.5 s, so the order shows.
      schedule: 'waits',
      prescribedWaitMs: SLOW_CASE_WAIT_MS,
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): the client SHOULD NOT send requests other than pings before the server has responded to the initialize request',
      description:
        'With replies taking 1.5 s, the client sends no request but ping before the initialize result arrived.',
      level: 'should',
      basis: 'protocol-should',
      rule: 'MCP 2024-11-05: the client SHOULD NOT send requests other than pings before the server has responded to the initialize request. Every tool client; a SHOULD NOT, so a request pipelined before the result is a warning.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.slow(t, env);
        expectTraffic(result, 'requests after the initialize result');
        if (clientRequests(result.journal, METHODS.initialize).length === 0) {
          throw new NotExercised(
            `the client sent no initialize, so no request came before its result (${idOf(t, 'lifecycle.initialized-first')} judges that)`,
          );
        }
        const early = earlyMessage(result, 'request');
        if (early !== undefined) {
          throw new CheckFailure(
            `the client sent ${early.text.slice(0, 200)} before the initialize result arrived`,
            'requests other than ping only after the initialize result',
            early.text,
            evidenceOf(result, 'requests after the initialize result', early.seq),
          );
        }
        const others = clientRequests(result.journal).filter(
          (r) => r.request.method !== METHODS.initialize && r.request.method !== METHODS.ping,
        );
        if (others.length === 0) {
          throw new NotExercised(
            `the client sent no request but initialize and ping (${describeCase(result)}): nothing to judge`,
          );
        }
      },
    },
    {
      id: idOf(t, 'ids.unique'),
      clause:
        'Tool-server objects: JSON-RPC request id (JSON-RPC 2.0: an id identifies one request of a session)',
      description:
        'The client never reuses a request id within a session (not exercised when no session of the plain call or of the ping case carried two requests).',
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: a request id MUST NOT have been used before by the requestor in the same session (JSON-RPC matches replies by id). Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const basic = await ctx.shared.basic(t);
        expectTraffic(basic, 'request ids');
        expectUniqueIds(basic);
        const ping = await ctx.shared.ping(t, env);
        expectUniqueIds(ping);
        if (mostRequestsInOneSession(basic) < 2 && mostRequestsInOneSession(ping) < 2) {
          throw new NotExercised(
            `request ids: no session carried two requests, so no id could be reused (plain call: ${describeCase(basic)}; call with a ping: ${describeCase(ping)})`,
          );
        }
      },
    },
    {
      id: idOf(t, 'ids.integer'),
      clause:
        'Tool-server objects: JSON-RPC request id: integer (JSON-RPC 2.0 and MCP also allow strings, hence should)',
      description:
        "The client uses integer request ids, as the spec's table shows (not exercised when the plain call carried no request).",
      level: 'should',
      basis: 'spec-reference',
      rule: "The spec's table shows integer request ids, as the reference client sends them; JSON-RPC 2.0 and MCP allow strings too, so a string id is a warning.",
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'request ids');
        const requests = clientRequests(result.journal);
        if (requests.length === 0) {
          throw new NotExercised(
            `request ids: the client sent notifications or answers but no request, so no id to judge (${describeCase(result)})`,
          );
        }
        for (const { request, entry } of requests) {
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
        await expectResultUnbroken(ctx, result, 'after a ping');
      },
    },
  ];
}
