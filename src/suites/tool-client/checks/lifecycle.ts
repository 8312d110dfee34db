import { type Check, type CheckEnv, CheckFailure, NotExercised } from '../../../harness/check.js';
import {
  answerTo,
  clientMessages,
  clientRequests,
  duplicateIds,
  MOCK_REQUEST_ID_BASE,
  type ToolJournalEntry,
} from '../../../mocks/tools/index.js';
import { bodyMessages, type JsonRpcId } from '../../../protocol/jsonrpc/index.js';
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

/** What a message sent before the initialize result is judged for (earlyMessage). */
export type EarlyKind = 'initialized' | 'request';

/**
 * The first client message of `kind` that reached the mock before its initialize result went
 * out: the initialized notification (`initialized`), or a request other than initialize and
 * ping (`request`); undefined when none did. Judged in each session that an initialize opened
 * (a probe session that ended unanswered holds nothing early); over the whole journal when the
 * client sent no initialize. A message that arrived before the result was sent was sent before
 * the client could have read it, whatever the transport: arrival order can only excuse here.
 */
export function earlyMessage(result: CaseResult, kind: EarlyKind) {
  const inits = clientRequests(result.journal, METHODS.initialize);
  for (const init of inits.length === 0 ? [undefined] : inits) {
    const session = init?.entry.session;
    const answer = init === undefined ? undefined : initializeAnswer(result.journal, init.entry);
    for (const entry of clientMessages(result.journal)) {
      if (session !== undefined && entry.session !== session) continue;
      if (answer !== undefined && entry.seq > answer.seq) break;
      if (isEarly(entry, kind)) return entry;
    }
  }
  return undefined;
}

/** The mock's success answer to the initialize request carried by `init`, in its session. */
function initializeAnswer(
  journal: readonly ToolJournalEntry[],
  init: ToolJournalEntry,
): ToolJournalEntry | undefined {
  const id = bodyMessages(init.value).find(
    (c) => c.kind === 'request' && c.message.method === METHODS.initialize,
  );
  if (id?.kind !== 'request') return undefined;
  return journal.find((e) => {
    if (e.direction !== 'sent' || e.kind !== 'message' || e.session !== init.session || e.seq < init.seq)
      return false;
    return bodyMessages(e.value).some((c) => c.kind === 'success' && c.message.id === id.message.id);
  });
}

/** A message only allowed after the initialize result (a batch's messages one by one). */
function isEarly(entry: ToolJournalEntry, kind: EarlyKind): boolean {
  return bodyMessages(entry.value).some((c) =>
    kind === 'initialized'
      ? c.kind === 'notification' && c.message.method === METHODS.initialized
      : c.kind === 'request' && c.message.method !== METHODS.initialize && c.message.method !== METHODS.ping,
  );
}

/** A break of the lifecycle's order in one session, and whether arrival order alone may hide a pipelined request. */
export interface OrderViolation {
  readonly entry: ToolJournalEntry;
  readonly reason: string;
  /**
   * `after-result`: a request arrived after the initialize result went out but before
   * notifications/initialized. The client may have sent it before it read the result (a
   * pipelined request, which MCP only says SHOULD NOT: lifecycle.requests-after-initialize-result),
   * so the check confirms it where replies take a second. `order`: anything else.
   */
  readonly kind: 'order' | 'after-result';
}

/**
 * MCP lifecycle, per session: initialize is the first request (before it, ping only), it is
 * not sent twice, notifications/initialized follows it, and once the initialize result went
 * out, no request but ping comes before notifications/initialized; a session whose initialize
 * was answered and that went on with requests sends notifications/initialized at all. A
 * request that arrived before the initialize result went out (pipelined) is not judged here.
 */
export function orderViolation(journal: readonly ToolJournalEntry[]): OrderViolation | undefined {
  interface State {
    initializeId?: JsonRpcId;
    answered: boolean;
    initialized: boolean;
    pipelined?: ToolJournalEntry;
    afterResult?: { entry: ToolJournalEntry; method: string };
  }
  const sessions = new Map<string, State>();
  const stateOf = (session: string) => {
    const state = sessions.get(session) ?? { answered: false, initialized: false };
    sessions.set(session, state);
    return state;
  };
  for (const entry of journal) {
    if (entry.kind !== 'message' || entry.value === undefined) continue;
    const state = stateOf(entry.session);
    for (const c of bodyMessages(entry.value)) {
      if (entry.direction === 'sent') {
        if (c.kind === 'success' && state.initializeId !== undefined && c.message.id === state.initializeId)
          state.answered = true;
        continue;
      }
      if (c.kind === 'notification' && c.message.method === METHODS.initialized) {
        if (state.initializeId === undefined) {
          return { entry, reason: 'notifications/initialized came before initialize', kind: 'order' };
        }
        state.initialized = true;
        continue;
      }
      if (c.kind !== 'request') continue;
      const { method } = c.message;
      if (method === METHODS.initialize) {
        if (state.initializeId !== undefined) {
          return { entry, reason: 'a second initialize request in the same session', kind: 'order' };
        }
        state.initializeId = c.message.id;
        continue;
      }
      if (method === METHODS.ping) continue;
      if (state.initializeId === undefined) {
        return { entry, reason: `${method} came before initialize`, kind: 'order' };
      }
      if (state.initialized) continue;
      if (state.answered) state.afterResult ??= { entry, method };
      else state.pipelined ??= entry;
    }
  }
  for (const state of sessions.values()) {
    if (state.afterResult !== undefined) {
      const { entry, method } = state.afterResult;
      const reason = state.initialized
        ? `${method} came after the initialize result but before the notifications/initialized notification`
        : `${method} came after the initialize result, and the notifications/initialized notification never came`;
      return { entry, reason, kind: 'after-result' };
    }
  }
  for (const state of sessions.values()) {
    if (state.pipelined !== undefined && state.answered && !state.initialized) {
      return {
        entry: state.pipelined,
        reason:
          'the client went on with requests but never sent the notifications/initialized notification after the initialize result',
        kind: 'order',
      };
    }
  }
  return undefined;
}

/**
 * Fails the client for `found`, the basic case's break of the lifecycle order, unless it may
 * be a request pipelined before the initialize result that merely arrived after the result
 * went out (the mock answers at once there). Such a break is confirmed in the slow case,
 * where the result takes a second: a request that arrives after the result there and before
 * notifications/initialized fails; a client that shows only pipelined requests there (sent
 * before the result, a SHOULD NOT judged by lifecycle.requests-after-initialize-result) is
 * not failed for the basic case's order.
 */
async function expectOrderKept(
  ctx: ToolClientCtx,
  env: CheckEnv,
  t: ToolTransport,
  basic: CaseResult,
  found: OrderViolation,
): Promise<void> {
  const fail = (result: CaseResult, violation: OrderViolation, note = '') => {
    throw new CheckFailure(
      `${violation.reason}${note}`,
      'initialize, then notifications/initialized, then other requests',
      violation.entry.text,
      evidenceOf(result, 'lifecycle', violation.entry.seq),
    );
  };
  if (found.kind === 'order') fail(basic, found);
  const slow = await ctx.shared.slow(t, env);
  const confirmed = orderViolation(slow.journal);
  if (confirmed !== undefined) {
    fail(
      slow,
      confirmed,
      confirmed.kind === 'after-result'
        ? ' (the initialize result took a second to come, so the client had it)'
        : '',
    );
  }
  const pipelined = earlyMessage(slow, 'request') ?? earlyMessage(basic, 'request');
  if (pipelined === undefined) fail(basic, found);
}

/** The session's order, its ids and the answer to the server's ping. */
export function lifecycleChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'lifecycle.initialized-first'),
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): initialize first, then the notifications/initialized notification (MUST) before any request other than ping',
      description:
        "initialize is the first request, and once its result arrived notifications/initialized precedes every other request but ping (a request pipelined before the result is lifecycle.requests-after-initialize-result's).",
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: initialization is the first interaction, and after it succeeds the client MUST send the initialized notification before normal operation. A request the client sent before the initialize result arrived is not judged here: MCP says only that the client SHOULD NOT send it. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'lifecycle');
        const violation = orderViolation(result.journal);
        if (violation !== undefined) await expectOrderKept(ctx, env, t, result, violation);
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
        'With replies taking a second, the client sends notifications/initialized only after the initialize result arrived.',
      level: 'must',
      basis: 'protocol-must',
      rule: 'MCP 2024-11-05: after successful initialization, that is after the initialize result, the client MUST send the initialized notification; sent before the result, it tells a server that has not agreed on a version yet that the client is ready. Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.shared.slow(t, env);
        expectTraffic(result, 'initialize awaited');
        const early = earlyMessage(result, 'initialized');
        if (early !== undefined) {
          throw new CheckFailure(
            `the client sent ${early.text.slice(0, 200)} before the initialize result arrived`,
            'notifications/initialized only after the initialize result',
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
      id: idOf(t, 'lifecycle.requests-after-initialize-result'),
      // The slow case of initialize-awaited: replies take a second, so the order shows.
      schedule: 'waits',
      prescribedWaitMs: SLOW_CASE_WAIT_MS,
      clause:
        'MCP 2024-11-05 lifecycle (not shown in the spec): the client SHOULD NOT send requests other than pings before the server has responded to the initialize request',
      description:
        'With replies taking a second, the client sends no request but ping before the initialize result arrived.',
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
