import { CheckFailure, NotExercised } from '../harness/check.js';
import type { JournalEntry } from '../mocks/messages/index.js';

/** The version the spec's requests name ("Versioning"). */
export const SPEC_VERSION = '2023-06-01';

/**
 * The judgement of a version header's value, for every client of the messages service
 * (messages-client.headers.version-value, agent.auth.version-value): a value other than the
 * spec's fails (a should: the real API accepts newer ones); none to judge is not exercised,
 * the header's absence being `sentCheck`'s.
 */
export function expectSpecVersionValue(
  requests: readonly { readonly label: string; readonly request: Pick<JournalEntry, 'version'> }[],
  sentCheck: string,
): void {
  for (const { label, request } of requests) {
    if (request.version === null || request.version.value === SPEC_VERSION) continue;
    throw new CheckFailure(
      `${label}: the version header names another version than the spec's`,
      `${request.version.header}: ${SPEC_VERSION}`,
      `${request.version.header}: ${request.version.value}`,
    );
  }
  if (requests.every(({ request }) => request.version === null)) {
    throw new NotExercised(
      `no request carried a version header, so there was no value to judge (${sentCheck} judges its absence)`,
    );
  }
}
