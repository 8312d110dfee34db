import { HarnessBug } from '../harness/check.js';
import type { JournalEntry, Reply, Scenario } from '../mocks/messages/index.js';
import { clip } from '../protocol/clip.js';
import { thrownMessage } from '../protocol/thrown.js';

/**
 * A case's scenario, and what it scripted for each request. The mock answers its own failures
 * as the real API answers one of its own: a scenario that threw or returned a reply the mock
 * cannot serve, or an error inside the mock, gets HTTP 500 api_error; a reply it cannot go on
 * streaming is cut (`streamError`). A client under test that meets one did nothing wrong, and a
 * check judging what it printed would fail it falsely. The journal alone cannot tell such a 500
 * from one the case scripts (both are status 500, errorType api_error), so the suite keeps what
 * its scenario answered beside it.
 */
export interface WatchedScenario {
  /** The scenario to give the mock: the case's own, answering the same. */
  readonly scenario: Scenario;
  /** The HarnessBug naming the first of `entries` that shows the mock failing on its own, or undefined. */
  failureIn(entries: readonly JournalEntry[]): HarnessBug | undefined;
}

/** Enough of a thrown message to find the bug by; the rest is in the mock's log. */
const THROWN_MESSAGE_CHARS = 500;

/**
 * Watch `scenario` for `what` (the case, in words). The maps hold one short value per request
 * the scenario throws at or scripts a 5xx for; a case stops its target after a bounded number
 * of requests (MAX_CASE_REQUESTS), so they stay that small.
 */
export function watchScenario(scenario: Scenario, what: string): WatchedScenario {
  const thrown = new Map<number, string>();
  const scripted5xx = new Map<number, number>();
  const watched: Scenario = async (request, ctx) => {
    let reply: Reply;
    try {
      reply = await scenario(request, ctx);
    } catch (e) {
      const named = e instanceof Error ? `${e.name}: ${thrownMessage(e)}` : thrownMessage(e);
      thrown.set(ctx.requestIndex, clip(named, THROWN_MESSAGE_CHARS));
      throw e;
    }
    const status = scriptedStatus(reply);
    if (status !== undefined && status >= 500) scripted5xx.set(ctx.requestIndex, status);
    return reply;
  };
  const why = (entry: JournalEntry): string | undefined => {
    if (entry.streamError !== undefined) return entry.streamError;
    const threw = thrown.get(entry.seq);
    if (threw !== undefined) return `the case's scenario threw (${threw}), and the mock answered HTTP 500`;
    const { status } = entry;
    if (status === undefined || status < 500 || entry.errorType !== 'api_error') return undefined;
    if (scripted5xx.get(entry.seq) === status) return undefined;
    return `it answered HTTP ${status} api_error, which the case's scenario did not script: an error inside the mock, or a reply of the scenario it could not serve (its log says which)`;
  };
  return {
    scenario: watched,
    failureIn(entries) {
      for (const entry of entries) {
        const found = why(entry);
        if (found === undefined) continue;
        return new HarnessBug(
          `${what}: the mock messages service failed on its own at request ${entry.seq + 1} (${entry.method} ${entry.url}, request-id ${entry.requestId}): ${found}; the target is not judged on an answer the mock could not give`,
        );
      }
      return undefined;
    },
  };
}

/** The status a reply asks the mock to answer with when it is not 200, if it says one. */
function scriptedStatus(reply: Reply): number | undefined {
  // A reply the mock refuses as broken is answered 500 whatever it says: read it warily.
  const r = reply as Partial<Record<string, unknown>> | null | undefined;
  if (r === null || typeof r !== 'object') return undefined;
  if (r.kind === 'error') return numberOr((r as { status?: unknown }).status);
  if (r.kind === 'recorded') return numberOr((r as { response?: { status?: unknown } }).response?.status);
  return numberOr((r as { faults?: { httpError?: { status?: unknown } } }).faults?.httpError?.status);
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
