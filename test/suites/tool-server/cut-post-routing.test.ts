import { expect, test } from 'vitest';
import { quickSuite, runAgainst, testServer } from './helpers.js';

// wirecheck cuts a POST that has no HTTP response within its HTTP budget (1000 ms here): the
// server may never have read the message, so no reply to it shows nothing about routing.

test('sse.concurrent-routing on a server slow to read one burst POST (cut by wirecheck, never read) is not exercised, not failed', async () => {
  const id = 'tool-server.sse.concurrent-routing';
  const result = await runAgainst(await testServer('slow-read-one-ping', 'sse'), { only: [id] }, quickSuite);
  const check = result.checks.find((c) => c.id === id)!;
  expect(check, check.message).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
  expect(check.message).toMatch(
    /^1 of 48 concurrent requests got no reply, and wirecheck had cut the POST of each after 1000 ms with no HTTP response/,
  );
}, 120_000);
