import { bodyMessages, type JsonRpcId } from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import { type ToolJournalEntry, UNNAMED_SESSION } from './journal.js';

// MCP's lifecycle order over a journal, as a must judges it: the requests a client pipelines
// before the initialize result are apart (MCP 2024-11-05 only says SHOULD NOT).

/** A break of the lifecycle's order in one session, and whether arrival order alone may hide a pipelined request. */
export interface LifecycleViolation {
  readonly entry: ToolJournalEntry;
  readonly reason: string;
  /**
   * `after-result`: a request arrived after the initialize result went out but before
   * notifications/initialized. The client may have sent it before it read the result (a
   * pipelined request, which MCP only says SHOULD NOT: lifecycle.requests-after-initialize-result),
   * so the check confirms it where replies take a second. `overlapped`: the same, but the
   * notification's HTTP request had begun to arrive before that request's (its body came
   * slower): the client may well have sent it first. `order`: anything else.
   */
  readonly kind: 'order' | 'after-result' | 'overlapped';
}

/**
 * MCP lifecycle, per session: initialize is the first request (before it, ping only), it is
 * not sent twice, notifications/initialized follows it, and once the initialize result went
 * out, no request but ping comes before notifications/initialized; a session whose initialize
 * was answered and that went on with requests sends notifications/initialized at all. A
 * request that arrived before the initialize result went out (pipelined) is not judged here.
 * A message that named no session but came after an initialize is judged in that
 * initialize's session (sessionOf): over Streamable HTTP the session id comes with the
 * initialize result, so what a client sends before it names none.
 */
export function lifecycleViolation(journal: readonly ToolJournalEntry[]): LifecycleViolation | undefined {
  interface State {
    initializeId?: JsonRpcId;
    answered: boolean;
    initialized?: ToolJournalEntry;
    pipelined?: ToolJournalEntry;
    afterResult?: { entry: ToolJournalEntry; method: string };
  }
  const sessions = new Map<string, State>();
  const stateOf = (session: string) => {
    const state = sessions.get(session) ?? { answered: false };
    sessions.set(session, state);
    return state;
  };
  /** The named sessions an initialize opened, the latest last. */
  const opened: string[] = [];
  for (const entry of journal) {
    if (entry.kind !== 'message' || entry.value === undefined) continue;
    const state = stateOf(sessionOf(entry, opened, sessions));
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
        state.initialized ??= entry;
        continue;
      }
      if (c.kind !== 'request') continue;
      const { method } = c.message;
      if (method === METHODS.initialize) {
        if (state.initializeId !== undefined) {
          return { entry, reason: 'a second initialize request in the same session', kind: 'order' };
        }
        state.initializeId = c.message.id;
        if (entry.session !== UNNAMED_SESSION) opened.push(entry.session);
        continue;
      }
      if (method === METHODS.ping) continue;
      if (state.initializeId === undefined) {
        return { entry, reason: `${method} came before initialize`, kind: 'order' };
      }
      if (state.initialized !== undefined) continue;
      if (state.answered) state.afterResult ??= { entry, method };
      else state.pipelined ??= entry;
    }
  }
  // A session whose order is shown broken outweighs one whose requests only overlapped.
  let overlapped: LifecycleViolation | undefined;
  for (const state of sessions.values()) {
    if (state.afterResult !== undefined) {
      const { entry, method } = state.afterResult;
      if (state.initialized === undefined) {
        const reason = `${method} came after the initialize result, and the notifications/initialized notification never came`;
        return { entry, reason, kind: 'after-result' };
      }
      const reason = `${method} came after the initialize result but before the notifications/initialized notification`;
      const lead = headStart(state.initialized, entry);
      if (lead === undefined) return { entry, reason, kind: 'after-result' };
      overlapped ??= {
        entry,
        reason: `${reason}, though the notification's HTTP request had begun to arrive ${lead} ms before the ${method}'s (its body came last: arrival order does not show which was sent first)`,
        kind: 'overlapped',
      };
    }
  }
  for (const state of sessions.values()) {
    if (state.pipelined !== undefined && state.answered && state.initialized === undefined) {
      return {
        entry: state.pipelined,
        reason:
          'the client went on with requests but never sent the notifications/initialized notification after the initialize result',
        kind: 'order',
      };
    }
  }
  return overlapped;
}

/**
 * The session `entry` belongs to: its own, or for a client message that named none (and is no
 * initialize), the session of the latest initialize still waiting for its result, else of the
 * latest initialize (lifecycle.ts earlyMessage places it alike). One before any initialize
 * stays apart: nothing was initialized that it could belong to.
 */
function sessionOf(
  entry: ToolJournalEntry,
  opened: readonly string[],
  sessions: ReadonlyMap<string, { readonly answered: boolean }>,
): string {
  if (entry.session !== UNNAMED_SESSION || entry.direction !== 'received' || opened.length === 0)
    return entry.session;
  const initializes = bodyMessages(entry.value).some(
    (c) => c.kind === 'request' && c.message.method === METHODS.initialize,
  );
  if (initializes) return entry.session;
  const waiting = opened.findLast((session) => sessions.get(session)?.answered === false);
  return waiting ?? opened.at(-1) ?? entry.session;
}

/**
 * How many ms before `earlier` began to arrive `later` (whose body was recorded after it) had
 * begun, when both came over HTTP with their timing; undefined when `later` began after.
 */
function headStart(later: ToolJournalEntry, earlier: ToolJournalEntry): number | undefined {
  if (later.http?.bodyMs === undefined || earlier.http?.bodyMs === undefined) return undefined;
  const lead = earlier.atMs - earlier.http.bodyMs - (later.atMs - later.http.bodyMs);
  return lead > 0 ? Math.max(1, Math.round(lead)) : undefined;
}
