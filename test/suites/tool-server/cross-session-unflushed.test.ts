import { expect, test } from 'vitest';
import { httpTarget, quickSuite, runAgainst } from './helpers.js';

// A GET stream whose headers go out only with its first event (Node's default unless flushed):
// the routing check gave up on it after its header budget and passed a server that copied
// every response onto it, having listened to nothing.

const id = 'tool-server.http.no-cross-session-reply';

test('a server that copies responses onto GET streams whose headers come with their first event fails', async () => {
  const result = await runAgainst(
    await httpTarget('streamable-broadcast-unflushed'),
    { only: [id] },
    quickSuite,
  );
  const check = result.checks.find((c) => c.id === id);
  expect(check?.status, check?.message).toBe('fail');
  expect(check?.message).toMatch(/the GET stream of http-routing-[ab] carried a response/);
}, 60_000);

test('the same GET streams with no response copied onto them pass', async () => {
  const result = await runAgainst(await httpTarget('streamable-get-unflushed'), { only: [id] }, quickSuite);
  const check = result.checks.find((c) => c.id === id);
  expect(check?.status, check?.message).toBe('pass');
}, 60_000);
