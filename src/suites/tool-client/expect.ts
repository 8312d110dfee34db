import { CheckFailure, NotExercised, show } from '../../harness/check.js';
import type { Evidence } from '../../harness/results.js';
import {
  clientRequests,
  journalEvidence,
  outcomeOfCall,
  type ReceivedRequest,
  sentCallResult,
} from '../../mocks/tools/index.js';
import { describeDifferences, differences } from '../../protocol/compare.js';
import { METHODS, normalizeCallToolResult } from '../../protocol/mcp/index.js';
import type { CaseResult } from './context.js';
import { describeToolClientRun } from './output.js';

/** The session's JSON-RPC traffic as report evidence, blaming entry `markSeq` when given. */
export function evidenceOf(result: CaseResult, title: string, markSeq?: number): Evidence {
  return journalEvidence(result.journal, `${title} (${result.transport})`, markSeq);
}

/** How the case's client run ended, and whether wirecheck stopped it for flooding the mock. */
export function describeCase(result: CaseResult): string {
  const stopped =
    result.stoppedAfterMessages === undefined
      ? ''
      : ` (wirecheck stopped it after ${result.stoppedAfterMessages} messages in this case)`;
  return `${describeToolClientRun(result.run)}${stopped}`;
}

/**
 * What the mock answered to the case's tools/call: the result the client must print. Read
 * from the journal, so it answers the arguments as the client sent them (a client may write
 * an object's keys in another order: JSON objects are unordered, and the echo tool's text
 * follows the order it got); the scenario's answer to the case's arguments when the journal
 * holds none.
 */
export function mockResultOf(result: CaseResult): unknown {
  const sent = sentCallResult(result.journal, result.input.tool);
  if (sent !== undefined) return sent;
  const outcome = outcomeOfCall(result.scenario, result.input.tool, result.input.arguments);
  return 'result' in outcome ? outcome.result : undefined;
}

/**
 * Every difference between the result the mock returned and what the client printed,
 * after bringing both to one form (MCP defaults: `isError` absent is false). Fields the
 * client adds are tolerated; fields it drops or changes are differences.
 */
export function resultDifferences(expected: unknown, printed: unknown) {
  return differences(normalizeCallToolResult(expected), normalizeCallToolResult(printed));
}

/** What a run that did not print a result did instead, for messages. */
function notPrinted(result: CaseResult): string {
  const { outcome } = result;
  if (outcome.type === 'error')
    return `exit ${outcome.exitCode} with {"error":{"message":${JSON.stringify(outcome.message)}}}`;
  if (outcome.type === 'printed') return `exit 0 with ${show(outcome.value)}`;
  return outcome.reason;
}

/** The client exited 0 and printed the result the mock returned (semantically: defaults and key order aside). */
export function expectPrintedResult(result: CaseResult, what: string): void {
  const expected = mockResultOf(result);
  const { outcome } = result;
  if (outcome.type !== 'printed') {
    throw new CheckFailure(
      `${what}: the client did not print the tools/call result (${describeCase(result)}): ${notPrinted(result)}`,
      'exit 0 and the tools/call result JSON on stdout',
      notPrinted(result),
      evidenceOf(result, what),
    );
  }
  const found = resultDifferences(expected, outcome.value);
  if (found.length > 0) {
    throw new CheckFailure(
      `${what}: the printed result differs from the one the mock returned: ${describeDifferences(found)}`,
      show(expected),
      show(outcome.value),
      evidenceOf(result, what),
    );
  }
}

/** The client reached the mock at all (a message, or an SSE stream opened); else nothing to judge. */
export function expectReached(result: CaseResult, what: string): void {
  if (result.journal.some((e) => e.direction === 'received')) return;
  throw new NotExercised(
    `${what}: the client never reached the ${result.transport} mock (${describeCase(result)})`,
  );
}

/** The case's session carried at least one client message; else there is nothing to judge. */
export function expectTraffic(result: CaseResult, what: string): void {
  if (result.journal.some((e) => e.direction === 'received' && e.kind === 'message')) return;
  throw new NotExercised(
    `${what}: the client sent the ${result.transport} mock nothing (${describeCase(result)})`,
  );
}

/**
 * The client sent one of `methods` (default: the case's tools/call): a case that scripts the
 * call's failure has nothing to judge otherwise (a client that gave up before the call
 * reports its own failure, not the one scripted).
 */
export function expectCallSent(
  result: CaseResult,
  what: string,
  methods: readonly string[] = [METHODS.toolsCall],
): void {
  if (methods.some((method) => clientRequests(result.journal, method).length > 0)) return;
  throw new NotExercised(
    `${what}: the client sent no ${methods.join(' or ')}, so the mock never gave the failure it scripts (${describeCase(result)})`,
  );
}

/** The client exited non-zero with `{"error":{"message"}}` on stdout (target contract in the README, tool-client). */
export function expectClientError(result: CaseResult, what: string): string {
  const { outcome } = result;
  const expected = 'exit non-zero and {"error":{"message":...}} on stdout';
  if (outcome.type === 'error') return outcome.message;
  const got = outcome.type === 'printed' ? `exit 0 with ${show(outcome.value)}` : outcome.reason;
  throw new CheckFailure(
    `${what}: the client did not report the failure as the contract says (${describeCase(result)})`,
    expected,
    got,
    evidenceOf(result, what),
  );
}

/** The client's one `method` request (the first one when it sent several). */
export function expectRequest(result: CaseResult, method: string, what: string): ReceivedRequest {
  const found = clientRequests(result.journal, method)[0];
  if (found === undefined) {
    throw new CheckFailure(
      `${what}: the client sent no ${method} request (${describeCase(result)})`,
      `a ${method} request`,
      'none',
      evidenceOf(result, what),
    );
  }
  return found;
}

/** The initialize request's params as an object (empty when absent). */
export function initializeParamsOf(
  result: CaseResult,
  what: string,
): { params: Record<string, unknown>; seq: number } {
  const { request, entry } = expectRequest(result, METHODS.initialize, what);
  return { params: request.params ?? {}, seq: entry.seq };
}
