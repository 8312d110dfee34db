import { expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { refusalIn, refusalOf } from '../../../src/suites/messages-client/expect.js';

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
