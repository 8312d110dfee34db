import { expect, test } from 'vitest';
import { openGet, post } from '../../../src/suites/tool-server/http.js';

// What goes into these requests can come from the server under test (an endpoint URL it
// announced, an event id sent back as Last-Event-ID). Node throws at once for a scheme other
// than http(s) or a header value it refuses; before, that threw out of a promise nobody
// awaited and stopped the run as a harness error.

test('a POST to an endpoint of another scheme resolves with a problem naming the scheme', async () => {
  const outcome = await post(new URL('ftp://127.0.0.1/messages?sessionId=1'), '{}', { timeoutMs: 1000 });
  expect(outcome.status).toBeUndefined();
  expect(outcome.problem).toMatch(/is not http or https \(scheme ftp:\)/);
});

test('a GET with a header value Node refuses resolves with a problem, not a throw', async () => {
  const got = await openGet(new URL('http://127.0.0.1:9/mcp'), { 'last-event-id': 'a\u0001b' }, 1000);
  expect(got).toMatchObject({ timedOut: false });
  expect('problem' in got && got.problem).toMatch(
    /could not send the request: Invalid character in header content/,
  );
});
