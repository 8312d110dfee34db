import { CheckFailure, show } from '../../harness/check.js';
import type { Evidence } from '../../harness/results.js';
import {
  clientRequests,
  journalEvidence,
  outcomeOfCall,
  type ReceivedRequest,
} from '../../mocks/tools/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import { firstDifference } from '../messages-client/compare.js';
import type { CaseResult } from './context.js';
import { describeToolClientRun } from './output.js';

/** The session's JSON-RPC traffic as report evidence, blaming entry `markSeq` when given. */
export function evidenceOf(result: CaseResult, title: string, markSeq?: number): Evidence {
  return journalEvidence(result.journal, `${title} (${result.transport})`, markSeq);
}

/** What the mock answered to the case's tools/call: the result the client must print. */
export function mockResultOf(result: CaseResult): unknown {
  const outcome = outcomeOfCall(result.scenario, result.input.tool, result.input.arguments);
  return 'result' in outcome ? outcome.result : undefined;
}

/** The client exited 0 and printed exactly the result the mock returned (key order aside). */
export function expectPrintedResult(result: CaseResult, what: string): void {
  const expected = mockResultOf(result);
  const { outcome, run } = result;
  if (outcome.type !== 'printed') {
    const got =
      outcome.type === 'error'
        ? `exit ${outcome.exitCode} with {"error":{"message":${JSON.stringify(outcome.message)}}}`
        : outcome.reason;
    throw new CheckFailure(
      `${what}: the client did not print the tools/call result (${describeToolClientRun(run)})`,
      'exit 0 and the tools/call result JSON on stdout',
      got,
      evidenceOf(result, what),
    );
  }
  const difference = firstDifference(expected, outcome.value);
  if (difference !== undefined) {
    throw new CheckFailure(
      `${what}: the printed result differs from the one the mock returned at ${difference}`,
      show(expected),
      show(outcome.value),
      evidenceOf(result, what),
    );
  }
}

/** The client exited non-zero with `{"error":{"message"}}` on stdout (TARGETS tool-client). */
export function expectClientError(result: CaseResult, what: string): string {
  const { outcome, run } = result;
  const expected = 'exit non-zero and {"error":{"message":...}} on stdout';
  if (outcome.type === 'error') return outcome.message;
  const got = outcome.type === 'printed' ? `exit 0 with ${show(outcome.value)}` : outcome.reason;
  throw new CheckFailure(
    `${what}: the client did not report the failure as the contract says (${describeToolClientRun(run)})`,
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
      `${what}: the client sent no ${method} request (${describeToolClientRun(result.run)})`,
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
