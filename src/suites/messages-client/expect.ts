import { CheckFailure, NotExercised, show } from '../../harness/check.js';
import { atMessagesEndpoint, type JournalEntry, MESSAGES_PATH, pathOf } from '../../mocks/messages/index.js';
import { describeDifferences, differences } from '../../protocol/compare.js';
import { safeParseCut } from '../../protocol/first-bad-element.js';
import { Message, normalizeMessageResponse, ReceivedBlock } from '../../protocol/messages/index.js';
import { bufferedShape } from './compare.js';
import type { CaseResult } from './context.js';
import type { ClientErrorKind } from './output.js';
import { describeRun } from './output.js';

/**
 * What the requests of a case looked like, for failure messages: all of them when there are
 * a few; a client that retried without end is shown by its first three and last two.
 */
export function describeRequests(requests: readonly JournalEntry[]): string {
  if (requests.length === 0) return 'no request reached the mock';
  const shown = requests.length > 6 ? [...requests.slice(0, 3), undefined, ...requests.slice(-2)] : requests;
  const lines = shown.map((r) => {
    if (r === undefined) return `... ${requests.length - 5} more ...`;
    const status = r.status === undefined ? 'no status' : `status ${r.status}`;
    const error = r.errorType === undefined ? '' : ` ${r.errorType}`;
    return `${r.method} ${r.url} (stream ${r.stream}, ${status}${error}, ${r.framesWritten} frames, ${r.outcome})`;
  });
  return `${requests.length === 1 ? '1 request' : `${requests.length} requests`}: ${lines.join('; ')}`;
}

/** How the client's run ended (and whether wirecheck stopped it), and its requests. */
export function describeCase(result: CaseResult): string {
  const stopped =
    result.stoppedAfterRequests === undefined
      ? ''
      : ` (wirecheck stopped it after ${result.stoppedAfterRequests} requests in this case)`;
  return `${describeRun(result.run)}${stopped}; requests: ${describeRequests(result.requests)}`;
}

/**
 * The client printed `expected` in the buffered response shape and exited 0. The fields
 * the spec names are compared after both sides are brought to one form (a default left
 * out equals one written out); fields the client adds are tolerated, blocks of types the
 * spec does not describe are skipped, and every difference is reported with its path.
 */
export function expectFinalMessage(result: CaseResult, expected: Message, what: string): void {
  const { outcome } = result;
  if (outcome.type !== 'printed') {
    const got =
      outcome.type === 'error'
        ? `exit ${outcome.exitCode} with ${show({ error: outcome.error })}`
        : outcome.reason;
    throw new CheckFailure(
      `${what}: the client did not print the final message (${describeCase(result)})`,
      'exit 0 and the final message JSON on stdout',
      got,
    );
  }
  const problem = printedMessageProblem(outcome.value, expected);
  if (problem !== undefined)
    throw new CheckFailure(`${what}: ${problem.says}`, show(problem.expected), show(problem.actual));
}

/**
 * What is wrong with `value`, a client's printed final message, as `expected` (see
 * expectFinalMessage), or undefined when nothing is.
 */
export function printedMessageProblem(
  value: unknown,
  expected: Message,
): { says: string; expected: unknown; actual: unknown } | undefined {
  const { parsed, note } = safeParseCut(Message, value, 'content', ReceivedBlock, 'block');
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return {
      says: `stdout is not a message in the buffered response shape (${issues})${note}`,
      expected: bufferedShape(expected),
      actual: value,
    };
  }
  const want = normalizeMessageResponse(bufferedShape(expected));
  const found = differences(want, normalizeMessageResponse(parsed.data), { extra: 'tolerate' });
  if (found.length === 0) return undefined;
  return {
    says: `the printed message differs from the message the mock served: ${describeDifferences(found)}`,
    expected: want,
    actual: parsed.data,
  };
}

/**
 * The client exited non-zero and printed `{"error":{...}}` with one of `kinds`, and,
 * when `status` is a number, that HTTP status (null: no status, absent or null, allowed).
 * `unseenAttempts`: the case's attempts reach no mock (a refused connection), so a client
 * still running when the case ran out may be retrying, and is not judged.
 */
export function expectClientError(
  result: CaseResult,
  kinds: readonly ClientErrorKind[],
  what: string,
  status?: number | null,
  unseenAttempts = false,
): void {
  const { outcome } = result;
  const expected = `exit non-zero and {"error":{"kind":${kinds.map((k) => JSON.stringify(k)).join('|')}${
    typeof status === 'number' ? `,"status":${status}` : ''
  },"message":...}}`;
  const context = describeCase(result);
  if (outcome.type === 'printed') {
    throw new CheckFailure(
      `${what}: the client exited 0 and printed a result (${context})`,
      expected,
      show(outcome.value),
    );
  }
  if (outcome.type === 'broken' && result.run.timedOut && result.requests.length >= 2) {
    // No rule bounds how long a client retries: a schedule that outlasts the case is not judged.
    throw new NotExercised(
      `${what}: the client was still retrying (${result.requests.length} requests) when the case ran out after ${Math.round(result.run.durationMs / 1000)} s, so the failure it reports was never seen (${context})`,
    );
  }
  if (outcome.type === 'broken' && result.run.timedOut && unseenAttempts) {
    throw new NotExercised(
      `${what}: the client neither reported the failure nor exited in the ${Math.round(result.run.durationMs / 1000)} s the case gives it. It may still have been retrying: no rule bounds retries, and attempts that are refused reach no mock to be counted. A client that hangs instead is not told apart from it; give it fewer retries to have it judged (${context})`,
    );
  }
  if (outcome.type === 'broken') {
    throw new CheckFailure(
      `${what}: the client did not report the failure as the contract says (${context})`,
      expected,
      outcome.reason,
    );
  }
  const { error } = outcome;
  if (!(kinds as readonly string[]).includes(error.kind)) {
    throw new CheckFailure(
      `${what}: wrong failure kind ${JSON.stringify(error.kind)} (${context})`,
      expected,
      show({ error }),
    );
  }
  if (typeof status === 'number' && error.status !== status) {
    throw new CheckFailure(
      `${what}: the failure must carry the HTTP status ${status} (${context})`,
      expected,
      show({ error }),
    );
  }
  if (status === null && typeof error.status === 'number') {
    throw new CheckFailure(
      `${what}: no HTTP response arrived, yet the failure carries status ${error.status} (${context})`,
      expected,
      show({ error }),
    );
  }
}

/** At least one request reached the mock; returns them. */
export function expectRequests(result: CaseResult, what: string): readonly JournalEntry[] {
  if (result.requests.length === 0) {
    throw new CheckFailure(
      `${what}: no request reached the mock messages service (${describeRun(result.run)})`,
      'POST {base_url}/v1/messages',
      'no request',
    );
  }
  return result.requests;
}

/**
 * Every request of the case asked for the reply shape stdin asked for. Without this a
 * client that ignores `stream: true` would pass every stream check without reading a
 * single frame.
 */
export function expectStreamFlag(result: CaseResult, stream: boolean, what: string): void {
  for (const request of expectRequests(result, what)) {
    if (request.stream !== stream) {
      throw new CheckFailure(
        `${what}: stdin asked for ${stream ? 'a stream (stream: true)' : 'a buffered reply (no stream flag)'} but the client sent ${
          request.stream ? 'stream: true' : 'no stream: true'
        }`,
        `stream ${stream}`,
        describeRequests([request]),
      );
    }
  }
}

/** A request the mock refused for a fault of the request another check owns, so the case's reply was never met. */
export interface Refusal {
  /** 0-based index among the case's requests. */
  readonly index: number;
  readonly status: number | undefined;
  readonly why: string;
  /** false: refused before the body was read (another path, no key), so there is no body to judge. */
  readonly bodyRead: boolean;
  /**
   * The check that fails the client for the fault; undefined when no check does: a body whose
   * Content-Encoding the mock cannot decode may be one the real API takes (not verified).
   */
  readonly judgedBy:
    | 'messages-client.request.endpoint'
    | 'messages-client.auth.key-sent'
    | 'messages-client.request.body'
    | undefined;
}

/** Who judges a refusal, for a message: the check, or that none does. */
export function judgeOf(refusal: Refusal): string {
  return refusal.judgedBy === undefined
    ? 'no check judges that request'
    : `${refusal.judgedBy} judges that request`;
}

/** Why the mock refused `entry`, or undefined: it was answered as the case scripts. */
export function refusalOf(entry: JournalEntry, index = 0): Refusal | undefined {
  const { status } = entry;
  if (!atMessagesEndpoint(entry)) {
    const why = `${entry.method} ${pathOf(entry)}, not POST ${MESSAGES_PATH}`;
    return { index, status, why, bodyRead: false, judgedBy: 'messages-client.request.endpoint' };
  }
  if (status === 401 && entry.configuredKeyIn.length === 0) {
    const why = 'no key from the environment';
    return { index, status, why, bodyRead: false, judgedBy: 'messages-client.auth.key-sent' };
  }
  if (entry.bodyUndecoded !== undefined) {
    return { index, status, why: entry.bodyUndecoded, bodyRead: false, judgedBy: undefined };
  }
  if (entry.bodyError !== undefined) {
    const why = `a body the real API refuses: ${entry.bodyError}`;
    return { index, status, why, bodyRead: true, judgedBy: 'messages-client.request.body' };
  }
  return undefined;
}

/** The first request of the case the mock refused (`refusalOf`). */
export function refusalIn(requests: readonly JournalEntry[]): Refusal | undefined {
  for (const [index, entry] of requests.entries()) {
    const refusal = refusalOf(entry, index);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}
