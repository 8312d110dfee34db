import { type Check, type CheckEnv, CheckFailure, NotExercised } from '../../../harness/check.js';
import {
  clientRequests,
  droppedAnswerStreams,
  initializeAnswer,
  type ToolJournalEntry,
} from '../../../mocks/tools/index.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import { revisionsFrom } from '../../../protocol/mcp/revisions.js';
import {
  acceptsBothPostAnswers,
  acceptsMediaType,
  PROTOCOL_VERSION_HEADER_SINCE,
  revisionAtLeast,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../../../protocol/mcp/streamable-http.js';
import { type CaseResult, SLOW_REPLY_MS, type ToolClientCtx } from '../context.js';
import { describeCase, evidenceOf, expectPrintedResult, expectReached, expectTraffic } from '../expect.js';
import { excuseIfPlainCallFails, expectResultUnbroken } from '../plain-call.js';
import { CASE_BUDGET_MS, echoWithFaults, idOf } from './common.js';

const TEXT = 'MCP Streamable HTTP transport (2025-03-26, 2025-06-18, 2025-11-25)';

/**
 * The revision from which a client SHOULD reconnect to a stream whose connection the server
 * closed (SEP-1699, "poll"); before it, resuming a broken stream is the client's choice.
 */
const POLL_SINCE = '2025-11-25';

/** The revision that made the client respect an SSE stream's `retry` field (SEP-1699). */
const RETRY_FIELD_SINCE = '2025-11-25';
/**
 * The `retry` (ms) the mock sends before dropping the stream in the retry check: three times
 * the 100 ms a client without it commonly waits, so ignoring it shows.
 */
export const RETRY_RESPECTED_MS = 300;
/** How much sooner than `retry` a reconnection may be measured and still pass: timers and clocks of two processes. */
export const RETRY_CLOCK_TOLERANCE_MS = 20;

/** Every HTTP request of the client, in order: POSTed messages, GETs and DELETEs. */
function httpRequestsOf(result: CaseResult): ToolJournalEntry[] {
  return result.journal.filter((e) => e.direction === 'received' && e.http !== undefined);
}

function isInitialize(entry: ToolJournalEntry): boolean {
  const value = entry.value as { method?: unknown } | undefined;
  return entry.kind === 'message' && value?.method === METHODS.initialize;
}

function headerOf(entry: ToolJournalEntry, name: string): string | undefined {
  return entry.http?.headers?.[name];
}

function describe(entry: ToolJournalEntry): string {
  const method = (entry.value as { method?: unknown } | undefined)?.method;
  const what = typeof method === 'string' ? ` (${method})` : '';
  return `${entry.http?.method ?? '?'}${what}`;
}

/** When an HTTP request began to arrive (its headers), on the journal's clock: `atMs` is when its body ended. */
function beganAt(entry: ToolJournalEntry): number {
  return entry.atMs - (entry.http?.bodyMs ?? 0);
}

/** A request sent once the client could hold its session's initialize answer, with the session ids issued before it. */
interface AfterAnswer {
  readonly entry: ToolJournalEntry;
  readonly issued: ReadonlySet<string>;
}

/**
 * The client's HTTP requests after its first initialize, split by its session's initialize
 * answer. Session id and MCP-Protocol-Version come with that answer, so their MUSTs bind the
 * requests that began to arrive after it went out (`after`); one that began before it (`before`)
 * was sent without it, pipelined (MCP: the client SHOULD NOT send requests other than pings
 * before the initialize result, lifecycle.requests-after-initialize-result's rule). A request's
 * session is the one its Mcp-Session-Id names, else the latest initialized before it.
 */
function byInitializeAnswer(result: CaseResult): { after: AfterAnswer[]; before: ToolJournalEntry[] } {
  const after: AfterAnswer[] = [];
  const before: ToolJournalEntry[] = [];
  /** Each session's initialize and its answer (undefined while none came). */
  const opened = new Map<string, { init: ToolJournalEntry; answer: ToolJournalEntry | undefined }>();
  let latest: { init: ToolJournalEntry; answer: ToolJournalEntry | undefined } | undefined;
  for (const entry of httpRequestsOf(result)) {
    if (isInitialize(entry)) {
      if (entry.http?.status === 200) {
        latest = { init: entry, answer: initializeAnswer(result.journal, entry) };
        opened.set(entry.session, latest);
      }
      continue;
    }
    if (latest === undefined) continue;
    const named = headerOf(entry, STREAMABLE_HTTP_HEADERS.sessionId);
    const { answer } = (named === undefined ? undefined : opened.get(named)) ?? latest;
    if (answer !== undefined && answer.seq < entry.seq && beganAt(entry) > answer.atMs) {
      after.push({ entry, issued: new Set(opened.keys()) });
    } else before.push(entry);
  }
  return { after, before };
}

/**
 * The first request after the initialize answer without a session id the mock issued (none, or
 * one it never gave): after a session ended, requests of the old session still in flight, a probe
 * session's DELETE, carry its id, which is no wrong id.
 */
function sessionIdBreak(result: CaseResult): AfterAnswer | undefined {
  return byInitializeAnswer(result).after.find(({ entry, issued }) => {
    const sent = headerOf(entry, STREAMABLE_HTTP_HEADERS.sessionId);
    return sent === undefined || !issued.has(sent);
  });
}

/** The first request after the initialize answer without MCP-Protocol-Version. */
function protocolVersionBreak(result: CaseResult): AfterAnswer | undefined {
  return byInitializeAnswer(result).after.find(
    ({ entry }) => headerOf(entry, STREAMABLE_HTTP_HEADERS.protocolVersion) === undefined,
  );
}

/**
 * A break `find` shows in the basic case, confirmed. There the mock answers initialize at once,
 * and a request the client sent before it read the answer (pipelined, on a connection of its
 * own) may begin to arrive after the answer went out. In the slow case the answer takes 1.5 s:
 * a break there too stands (reported from there, `slow`); a client shown to send requests before
 * the answer (in either case) is not failed for the basic case's; any other keeps it.
 */
async function confirmedBreak(
  ctx: ToolClientCtx,
  env: CheckEnv,
  basic: CaseResult,
  find: (result: CaseResult) => AfterAnswer | undefined,
): Promise<{ result: CaseResult; found: AfterAnswer; slow: boolean } | undefined> {
  const found = find(basic);
  if (found === undefined) return undefined;
  const slow = await ctx.shared.slow('http', env);
  const again = find(slow);
  if (again !== undefined) return { result: slow, found: again, slow: true };
  if (byInitializeAnswer(slow).before.length > 0 || byInitializeAnswer(basic).before.length > 0) {
    return undefined;
  }
  return { result: basic, found, slow: false };
}

/** What a message adds when the break was confirmed where the initialize answer took 1.5 s. */
function slowNote(slow: boolean): string {
  return slow ? ` (the initialize answer took ${SLOW_REPLY_MS} ms to come, and the request followed it)` : '';
}

/**
 * Every request after the first initialize carries a session id the mock had issued by then
 * (an initialize answered 200): after a session ended, requests of the old session still in
 * flight, or the DELETE of it, carry its id, which is no wrong id; a request without one, or
 * with an id the mock never issued, is.
 */
function expectIssuedSessions(result: CaseResult, what: string): void {
  const issued = new Set<string>();
  for (const entry of httpRequestsOf(result)) {
    if (isInitialize(entry)) {
      if (entry.http?.status === 200) issued.add(entry.session);
      continue;
    }
    if (issued.size === 0) continue;
    const sent = headerOf(entry, STREAMABLE_HTTP_HEADERS.sessionId);
    if (sent !== undefined && issued.has(sent)) continue;
    throw new CheckFailure(
      `${what}: a ${describe(entry)} after initialize carried ${sent === undefined ? 'no Mcp-Session-Id' : `Mcp-Session-Id ${JSON.stringify(sent)}`}, not a session id the server issued`,
      `Mcp-Session-Id: one of ${[...issued].join(', ')}`,
      sent === undefined ? 'absent' : sent,
      evidenceOf(result, what, entry.seq),
    );
  }
}

/** The client's GETs that carried Last-Event-ID. */
function resumedWith(result: CaseResult): ToolJournalEntry[] {
  return httpRequestsOf(result).filter(
    (e) => e.http?.method === 'GET' && headerOf(e, STREAMABLE_HTTP_HEADERS.lastEventId) !== undefined,
  );
}

/** The revision the client asked for in its first initialize, if any. */
function askedRevision(result: CaseResult): string | undefined {
  const first = clientRequests(result.journal, METHODS.initialize)[0];
  const version = first?.request.params?.protocolVersion;
  return typeof version === 'string' ? version : undefined;
}

/** Checks of the client's side of MCP's Streamable HTTP transport (`tool-client.http.*`). */
export const streamableHttpChecks: Check<ToolClientCtx>[] = [
  {
    id: idOf('http', 'accept'),
    clause: `${TEXT}: every POST carries Accept listing application/json and text/event-stream; a GET accepts text/event-stream`,
    description:
      'Every POST lists both application/json and text/event-stream in Accept; a GET (if any) lists text/event-stream.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP Streamable HTTP: the client MUST include an Accept header listing both application/json and text/event-stream on every POST, and text/event-stream on a GET. Every Streamable HTTP client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('http');
      expectTraffic(result, 'Accept header');
      const wrong = httpRequestsOf(result).find((e) => {
        const accept = headerOf(e, 'accept');
        if (e.http?.method === 'POST') return !acceptsBothPostAnswers(accept);
        if (e.http?.method === 'GET')
          return !acceptsMediaType(accept, STREAMABLE_HTTP_CONTENT_TYPES.eventStream);
        return false;
      });
      if (wrong !== undefined) {
        const accept = headerOf(wrong, 'accept');
        throw new CheckFailure(
          `a ${describe(wrong)} carried Accept: ${accept === undefined ? '(absent)' : JSON.stringify(accept)}`,
          wrong.http?.method === 'GET'
            ? 'Accept listing text/event-stream'
            : 'Accept: application/json, text/event-stream',
          accept ?? 'absent',
          evidenceOf(result, 'Accept header', wrong.seq),
        );
      }
    },
  },
  {
    id: idOf('http', 'session-id'),
    clause: `${TEXT}: the Mcp-Session-Id issued with the initialize answer is sent on every later request`,
    description:
      "Every request sent after the initialize answer (POST, GET, DELETE) carries a Mcp-Session-Id the mock issued: its session's, or an earlier session's (a probe session's DELETE). A request sent before the answer, which it could not carry, is not judged; one the plain call shows may have been is confirmed where the answer takes 1.5 s.",
    level: 'must',
    basis: 'protocol-must',
    rule: "MCP Streamable HTTP: when the server returns Mcp-Session-Id with the initialize answer, the client MUST include it in the Mcp-Session-Id header of all its later HTTP requests. Every Streamable HTTP client, for the requests it sends once it has the answer; a request pipelined before the answer is lifecycle.requests-after-initialize-result's (a SHOULD NOT).",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.shared.basic('http');
      const what = 'session id';
      expectTraffic(result, what);
      if (byInitializeAnswer(result).after.length === 0) {
        throw new NotExercised(`${what}: the client sent nothing after the initialize answer`);
      }
      const broken = await confirmedBreak(ctx, env, result, sessionIdBreak);
      if (broken === undefined) return;
      const { entry, issued } = broken.found;
      const sent = headerOf(entry, STREAMABLE_HTTP_HEADERS.sessionId);
      throw new CheckFailure(
        `${what}: a ${describe(entry)} after the initialize answer carried ${sent === undefined ? 'no Mcp-Session-Id' : `Mcp-Session-Id ${JSON.stringify(sent)}`}, not a session id the server issued${slowNote(broken.slow)}`,
        `Mcp-Session-Id: ${issued.size === 1 ? [...issued][0] : `one of ${[...issued].join(', ')}`}`,
        sent === undefined ? 'absent' : sent,
        evidenceOf(broken.result, what, entry.seq),
      );
    },
  },
  {
    id: idOf('http', 'session-expired.reinitialize'),
    clause: `${TEXT}: a 404 to a request carrying the session id means the session ended; the client starts a new one`,
    description:
      'The mock answers the first request after initialize with 404: the client then sends a new initialize without a session id (whatever else of the old session arrives around it), uses the new id, and prints the result or reports the failed request as the contract says.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP Streamable HTTP: when a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session id attached. Every Streamable HTTP client. Sending the request again is not asked: a client may report it failed (the error of the target contract).',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'http', { expireSession: true });
      const what = 'session expired (404)';
      expectReached(result, what);
      const requests = httpRequestsOf(result);
      const expiredAt = requests.findIndex((e) => e.http?.status === 404 && !isInitialize(e));
      if (expiredAt < 0) {
        throw new NotExercised(`${what}: the client sent no request after initialize, so no 404 was given`);
      }
      const expired = requests[expiredAt]!;
      // Judged by what was sent, not by the order it arrived in: requests in flight with the
      // old id get their 404s too, a client may DELETE the old session or reopen a stream
      // first. The MUST is that a new initialize, without a session id, follows the 404.
      const after = requests.slice(expiredAt + 1);
      const reinitialize = after.find(isInitialize);
      if (reinitialize === undefined) {
        const sent = after.filter((e) => e.kind === 'message');
        const shown = sent.slice(0, 3).map(describe).join(', ');
        throw new CheckFailure(
          `${what}: after the 404 the client ${sent.length === 0 ? 'sent nothing more' : `sent ${shown}${sent.length > 3 ? ` and ${sent.length - 3} more` : ''}`}, and no new initialize`,
          'POST initialize without Mcp-Session-Id',
          sent.length === 0 ? 'nothing' : shown,
          evidenceOf(result, what, expired.seq),
        );
      }
      const carried = headerOf(reinitialize, STREAMABLE_HTTP_HEADERS.sessionId);
      if (carried !== undefined) {
        throw new CheckFailure(
          `${what}: the new initialize carried Mcp-Session-Id ${JSON.stringify(carried)}`,
          'no Mcp-Session-Id on the new initialize',
          carried,
          evidenceOf(result, what, reinitialize.seq),
        );
      }
      expectIssuedSessions(result, what);
      // MCP asks for the new session, not for the request to be sent again: the contract's
      // error for the request that met the 404 is as good as its result.
      if (result.outcome.type === 'error') return;
      await excuseIfPlainCallFails(ctx, result, what);
      expectPrintedResult(result, what);
    },
  },
  {
    id: idOf('http', 'protocol-version-header'),
    clause: `${TEXT} (${PROTOCOL_VERSION_HEADER_SINCE} and later): every request after initialize carries MCP-Protocol-Version`,
    description: `Every request sent after the initialize answer carries MCP-Protocol-Version (the run's revision, which the mock answers in initialize, is ${PROTOCOL_VERSION_HEADER_SINCE} or later). A request sent before the answer, when no version was negotiated yet, is not judged; one the plain call shows may have been is confirmed where the answer takes 1.5 s.`,
    level: 'must',
    basis: 'protocol-must',
    rule: `MCP Streamable HTTP, ${PROTOCOL_VERSION_HEADER_SINCE} and later: a client MUST include the MCP-Protocol-Version header on all requests after initialization. Every Streamable HTTP client of a session that negotiated ${PROTOCOL_VERSION_HEADER_SINCE} or later, for the requests it sends once it has the initialize answer; a request pipelined before it is lifecycle.requests-after-initialize-result's (a SHOULD NOT).`,
    revisions: revisionsFrom(PROTOCOL_VERSION_HEADER_SINCE),
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.shared.basic('http');
      const what = 'MCP-Protocol-Version';
      expectTraffic(result, what);
      if (byInitializeAnswer(result).after.length === 0)
        throw new NotExercised(`${what}: the client sent nothing after the initialize answer`);
      const broken = await confirmedBreak(ctx, env, result, protocolVersionBreak);
      if (broken === undefined) return;
      const { entry } = broken.found;
      throw new CheckFailure(
        `a ${describe(entry)} after the initialize answer carried no MCP-Protocol-Version header (the client asked for ${askedRevision(broken.result) ?? 'no version'}; the server answered ${broken.result.scenario.protocolVersion})${slowNote(broken.slow)}`,
        `MCP-Protocol-Version: ${broken.result.scenario.protocolVersion}`,
        'absent',
        evidenceOf(broken.result, what, entry.seq),
      );
    },
  },
  {
    id: idOf('http', 'protocol-version-header.negotiated'),
    clause: `${TEXT} (${PROTOCOL_VERSION_HEADER_SINCE} and later): the MCP-Protocol-Version sent is the negotiated one`,
    description: 'The MCP-Protocol-Version a client sends is the version the server answered in initialize.',
    level: 'should',
    basis: 'protocol-should',
    rule: `MCP Streamable HTTP, ${PROTOCOL_VERSION_HEADER_SINCE} and later: the protocol version the client sends SHOULD be the one negotiated during initialization. Clients that send the header in a session of ${PROTOCOL_VERSION_HEADER_SINCE} or later.`,
    revisions: revisionsFrom(PROTOCOL_VERSION_HEADER_SINCE),
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('http');
      expectTraffic(result, 'negotiated MCP-Protocol-Version');
      const negotiated = result.scenario.protocolVersion;
      const sent = byInitializeAnswer(result).after.filter(
        ({ entry }) => headerOf(entry, STREAMABLE_HTTP_HEADERS.protocolVersion) !== undefined,
      );
      if (sent.length === 0)
        throw new NotExercised('the client sent no MCP-Protocol-Version header to judge');
      const other = sent.find(
        ({ entry }) => headerOf(entry, STREAMABLE_HTTP_HEADERS.protocolVersion) !== negotiated,
      );
      if (other !== undefined) {
        const value = headerOf(other.entry, STREAMABLE_HTTP_HEADERS.protocolVersion);
        throw new CheckFailure(
          `a ${describe(other.entry)} carried MCP-Protocol-Version ${JSON.stringify(value)}, but the server answered initialize with ${negotiated}`,
          `MCP-Protocol-Version: ${negotiated}`,
          value,
          evidenceOf(result, 'negotiated MCP-Protocol-Version', other.entry.seq),
        );
      }
    },
  },
  {
    id: idOf('http', 'answer.event-stream'),
    clause: `${TEXT}: a POST carrying requests may be answered with an event stream; the client MUST support it`,
    description:
      'Every request is answered with a text/event-stream (ids on the events): the client prints the result.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP Streamable HTTP: the server answers a POST carrying requests with Content-Type text/event-stream or application/json, and the client MUST support both. Every Streamable HTTP client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('http');
      expectReached(result, 'event-stream answers');
      expectPrintedResult(result, 'event-stream answers');
    },
  },
  {
    id: idOf('http', 'answer.json'),
    clause: `${TEXT}: a POST carrying requests may be answered with one JSON object; the client MUST support it`,
    description: 'Every request is answered with one application/json body: the client prints the result.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP Streamable HTTP: the server answers a POST carrying requests with Content-Type text/event-stream or application/json, and the client MUST support both. Every Streamable HTTP client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'http', { httpAnswer: 'json' });
      expectReached(result, 'JSON answers');
      await excuseIfPlainCallFails(ctx, result, 'JSON answers');
      expectPrintedResult(result, 'JSON answers');
    },
  },
  {
    id: idOf('http', 'stream.resumed'),
    clause: `${TEXT}: a client resuming a broken stream issues GET with Last-Event-ID; from ${POLL_SINCE}, a client whose connection the server closed reconnects`,
    description: `The tools/call answer stream ends after an event carrying only an id: the client resumes with GET and that id as Last-Event-ID, and prints the result. Before ${POLL_SINCE} resuming is the client's choice: a client that does not resume is not exercised there, one that resumes with an id the server never sent warns. Not exercised when the mock never ended a stream (the client's tools/call was refused).`,
    level: 'should',
    basis: 'protocol-should',
    rule: `MCP Streamable HTTP: if the client wishes to resume after a broken connection, it SHOULD issue an HTTP GET with the Last-Event-ID header of the last event it received (2025-03-26, 2025-06-18: resuming itself is optional). ${POLL_SINCE}: "After the server has sent an SSE event with an event ID to the client, the server MAY close the connection (without terminating the SSE stream) at any time in order to avoid holding a long-lived connection. The client SHOULD then 'poll' the SSE stream by attempting to reconnect." Every Streamable HTTP client; one that does not resume only from ${POLL_SINCE}.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'http', { dropAnswerStream: true });
      const what = 'dropped answer stream';
      expectReached(result, what);
      const call = clientRequests(result.journal, METHODS.toolsCall)[0];
      if (call === undefined) throw new NotExercised(`${what}: the client sent no tools/call`);
      if (droppedAnswerStreams(result.journal).length === 0) {
        throw new NotExercised(
          `${what}: the mock never ended an answer stream early (the client's tools/call POST was answered ${call.entry.http?.status ?? 'with nothing'}), so there was no broken stream to resume (${describeCase(result)})`,
        );
      }
      const resumes = resumedWith(result);
      // The mock answers 400 to an id it never sent on that stream: the id was not the one received.
      const named = resumes.find((e) => e.http?.status === 400);
      if (named !== undefined && !resumes.some((e) => e.http?.status === 200)) {
        const sent = headerOf(named, STREAMABLE_HTTP_HEADERS.lastEventId);
        throw new CheckFailure(
          `${what}: the client resumed with Last-Event-ID ${JSON.stringify(sent)}, which names no event the server sent on that stream (answered 400)`,
          'Last-Event-ID: the id of the last event received (the id-only event that ended the stream)',
          String(sent),
          evidenceOf(result, what, named.seq),
        );
      }
      if (resumes.length === 0) {
        const revision = result.scenario.protocolVersion;
        if (!revisionAtLeast(revision, POLL_SINCE)) {
          throw new NotExercised(
            `${what}: the client did not resume the tools/call answer stream the mock ended; in ${revision} resuming is optional ("if the client wishes to resume"), only from ${POLL_SINCE} SHOULD a client reconnect (${describeCase(result)})`,
          );
        }
        throw new CheckFailure(
          `${what}: the client never sent GET with Last-Event-ID after the tools/call answer stream ended (${result.outcome.type === 'printed' ? 'it printed' : 'it did not print'} a result; in ${revision} the client SHOULD poll a stream whose connection the server closed)`,
          'GET with Last-Event-ID of the last event received',
          'no such GET',
          evidenceOf(result, what, call.entry.seq),
        );
      }
      await excuseIfPlainCallFails(ctx, result, what);
      expectPrintedResult(result, what);
    },
  },
  {
    id: idOf('http', 'stream.retry-respected'),
    // Its case waits out the retry the mock asks for: the wait overlaps other checks.
    schedule: 'waits',
    prescribedWaitMs: RETRY_RESPECTED_MS,
    clause: `MCP Streamable HTTP transport (${RETRY_FIELD_SINCE} and later): a client MUST respect the retry field of a stream the server closed, waiting that many ms before reconnecting`,
    description: `The tools/call answer stream ends after an event carrying only an id and \`retry: ${RETRY_RESPECTED_MS}\`: the client's GET with Last-Event-ID arrives no sooner than ${RETRY_RESPECTED_MS} ms after the stream ended (${RETRY_CLOCK_TOLERANCE_MS} ms of clock tolerance, in the client's favour). A client that never reconnects is judged by tool-client.http.stream.resumed.`,
    level: 'must',
    basis: 'protocol-must',
    rule: `MCP Streamable HTTP, ${RETRY_FIELD_SINCE} and later: a server that closes the connection before the SSE stream is over should send an event with the standard SSE retry field first; the client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect. Every Streamable HTTP client of a session that negotiated ${RETRY_FIELD_SINCE} or later.`,
    revisions: revisionsFrom(RETRY_FIELD_SINCE),
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'http', {
        dropAnswerStream: true,
        dropRetryMs: RETRY_RESPECTED_MS,
      });
      const what = `retry: ${RETRY_RESPECTED_MS} before a dropped answer stream`;
      expectReached(result, what);
      if (clientRequests(result.journal, METHODS.toolsCall)[0] === undefined) {
        throw new NotExercised(`${what}: the client sent no tools/call`);
      }
      const first = resumedWith(result).find((e) => e.resume !== undefined);
      if (first?.resume === undefined) {
        throw new NotExercised(
          `${what}: the client never reconnected to the dropped stream, so there is no wait to judge (tool-client.http.stream.resumed judges the resumption)`,
        );
      }
      const { retryMs, sinceDropMs } = first.resume;
      if (sinceDropMs < retryMs - RETRY_CLOCK_TOLERANCE_MS) {
        throw new CheckFailure(
          `${what}: the client's GET with Last-Event-ID arrived ${Math.round(sinceDropMs)} ms after the stream ended, sooner than the ${retryMs} ms its retry field asked for`,
          `GET with Last-Event-ID at least ${retryMs} ms after the stream ended (${RETRY_CLOCK_TOLERANCE_MS} ms tolerance)`,
          `${Math.round(sinceDropMs)} ms`,
          evidenceOf(result, what, first.seq),
        );
      }
    },
  },
  {
    id: idOf('http', 'session.deleted'),
    clause: `${TEXT}: a client that no longer needs the session sends DELETE with its Mcp-Session-Id`,
    description: 'At the end of its run the client sends DELETE with the session id (the mock allows it).',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP Streamable HTTP: clients that no longer need a particular session SHOULD send an HTTP DELETE to the endpoint with the Mcp-Session-Id header to end it. Every Streamable HTTP client that is done with its session.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('http');
      expectReached(result, 'DELETE');
      await excuseIfPlainCallFails(ctx, result, 'DELETE');
      await expectResultUnbroken(ctx, result, 'DELETE');
      const deleted = httpRequestsOf(result).find((e) => e.http?.method === 'DELETE');
      if (deleted === undefined) {
        throw new CheckFailure(
          'the client ended without sending DELETE for its session',
          'DELETE with Mcp-Session-Id',
          'no DELETE',
          evidenceOf(result, 'DELETE'),
        );
      }
    },
  },
];
