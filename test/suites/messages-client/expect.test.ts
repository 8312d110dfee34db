import { describe, expect, test } from 'vitest';
import { CheckFailure, NotExercised } from '../../../src/harness/check.js';
import { atOtherApiOperation, type JournalEntry } from '../../../src/mocks/messages/index.js';
import type { CaseResult } from '../../../src/suites/messages-client/context.js';
import { expectClientError, refusalIn, refusalOf } from '../../../src/suites/messages-client/expect.js';
import { classifyRun } from '../../../src/suites/messages-client/output.js';

/** A journal entry of a POST to `url` answered `status`. */
function entry(status: number, extra: Partial<JournalEntry> = {}, url = '/v1/messages'): JournalEntry {
  return { seq: 0, status, method: 'POST', url, configuredKeyIn: ['x-api-key'], ...extra } as JournalEntry;
}

test('a request to another path is refused unread, for request.endpoint', () => {
  expect(refusalOf(entry(404, {}, '/messages'))).toMatchObject({
    status: 404,
    bodyRead: false,
    judgedBy: 'messages-client.request.endpoint',
  });
});

test('a 401 to a request without the configured key is refused unread, for auth.key-sent', () => {
  expect(refusalOf(entry(401, { configuredKeyIn: [] }))).toMatchObject({
    bodyRead: false,
    judgedBy: 'messages-client.auth.key-sent',
  });
  // A 401 the case scripted, to a request that carried the key, is the reply the case judges.
  expect(refusalOf(entry(401))).toBeUndefined();
});

test('a body the mock refused as the real API would was read, and is for request.body', () => {
  const refused = entry(400, { bodyError: 'temperature: Too big: expected number to be <=1' });
  expect(refusalOf(refused, 2)).toEqual({
    index: 2,
    status: 400,
    why: 'a body the real API refuses: temperature: Too big: expected number to be <=1',
    bodyRead: true,
    judgedBy: 'messages-client.request.body',
  });
  // A 400 the case scripted is not a refusal.
  expect(refusalOf(entry(400))).toBeUndefined();
});

test('refusalIn names the first refused request of a case', () => {
  expect(refusalIn([entry(200), entry(404, {}, '/messages')])).toMatchObject({ index: 1 });
  expect(refusalIn([entry(200), entry(429)])).toBeUndefined();
});

describe('expectClientError on a client that is still retrying when its case runs out', () => {
  const timedOut = (requests: number): CaseResult => {
    const run = {
      exitCode: null,
      signal: 'SIGTERM',
      stdout: '',
      stderr: '',
      timedOut: true,
      durationMs: 50_020,
    } as const;
    return {
      run,
      outcome: classifyRun(run),
      requests: Array.from({ length: requests }, () => entry(529)),
      otherOperations: [],
    };
  };

  test('with retries seen (two requests or more) the check is not exercised: no rule bounds retrying', () => {
    expect(() => expectClientError(timedOut(4), ['status'], 'HTTP 529', 529)).toThrow(NotExercised);
  });

  test('one request and no exit is a failure: the client hung', () => {
    expect(() => expectClientError(timedOut(1), ['status'], 'HTTP 529', 529)).toThrow(CheckFailure);
  });

  test('a refused connection leaves no request to count: no exit in the case is not judged there, and is a failure where attempts reach the mock', () => {
    const refused = () => expectClientError(timedOut(0), ['connection'], 'connection refused', null, true);
    expect(refused).toThrow(NotExercised);
    expect(refused).toThrow(/may still have been retrying/);
    expect(() => expectClientError(timedOut(0), ['connection'], 'connection refused', null)).toThrow(
      CheckFailure,
    );
  });
});

test('requests to the real API operations beside the messages one are no refusal and go to no check', () => {
  expect(atOtherApiOperation(entry(404, {}, '/v1/messages/count_tokens'))).toBe(true);
  expect(atOtherApiOperation(entry(404, {}, '/v1/models?limit=1'))).toBe(true);
  expect(atOtherApiOperation(entry(404, {}, '/v1/message'))).toBe(false);
  expect(atOtherApiOperation(entry(200))).toBe(false);
});
