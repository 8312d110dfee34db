import { expect, test } from 'vitest';
import { createToolServerSuite } from '../../../src/suites/tool-server/index.js';
import { quickSuite, runAgainst, statusById, testServer } from './helpers.js';

// The generated-arguments property calls a session silent only when a call, the ping after it
// and a longer wait all go unanswered. A server stalled for a while (a machine under load,
// simulated: the test server sleeps 5 s, past the 1.5 s reply budget of the call and of the
// ping) is alive, and the must check passes; one silent for longer, its process alive, warns;
// only a server that dies fails (broken-cases: crash-on-negative).

const ONLY = ['tool-server.tools.generated-arguments', 'tool-server.tools.generated-arguments-answered'];

test('a server stalled past the reply budget of a call and a ping is not judged dead, and its late answer counts', async () => {
  const result = await runAgainst(await testServer('stall-on-negative', 'stdio'), { only: ONLY }, quickSuite);
  expect(statusById(result)).toEqual({
    'tool-server.tools.generated-arguments': 'pass',
    'tool-server.tools.generated-arguments-answered': 'pass',
  });
}, 120_000);

test('a server that answers nothing after a call, though its process lives, warns: JSON-RPC sets no deadline', async () => {
  // A server busy with a long call, one request at a time, looks the same for as long as it
  // is busy: only a session that ends fails the must check.
  const result = await runAgainst(await testServer('hang-on-negative', 'stdio'), { only: ONLY }, quickSuite);
  const check = result.checks.find((c) => c.id === 'tool-server.tools.generated-arguments')!;
  expect(check.status, check.message).toBe('pass');
  const answered = result.checks.find((c) => c.id === 'tool-server.tools.generated-arguments-answered')!;
  expect(answered.status).toBe('warn');
  expect(answered.message).toMatch(
    /got no reply within 1500 ms, e.g. add with .* \(the session then answered nothing, not even a ping, for 7500 ms, though it did not end\)/,
  );
}, 120_000);

test('a server whose every call outlasts the reply budget, one request at a time, is slow and not gone', async () => {
  // Each call leaves the call and the ping after it unanswered until the ping's late reply:
  // that reply must count, or the second slow call would make three unanswered in a row.
  const fewCalls = createToolServerSuite({ maxCalls: 4, modelRuns: 2, httpMs: 1000, replyMs: 1500 });
  const result = await runAgainst(await testServer('slow-calls', 'stdio'), { only: ONLY }, fewCalls);
  expect(statusById(result)).toEqual({
    'tool-server.tools.generated-arguments': 'pass',
    // Each call's own reply comes (late, before the ping's) and counts, as in the stall above.
    'tool-server.tools.generated-arguments-answered': 'pass',
  });
}, 120_000);

test("stdout-purity's unanswered call and ping on its own process do not count toward the run's silence: a server slow on every call is not gone", async () => {
  // stdout-purity waits one reply budget for its call and one for the ping queued behind it; counted,
  // they made generated-arguments' first slow call the third unanswered request in a row.
  const fewCalls = createToolServerSuite({ maxCalls: 4, modelRuns: 2, httpMs: 1000, replyMs: 1500 });
  const only = ['tool-server.stdio.stdout-purity', ...ONLY];
  const result = await runAgainst(await testServer('slow-calls', 'stdio'), { only, jobs: 1 }, fewCalls);
  expect(result.stopped).toBeUndefined();
  expect(statusById(result)).toEqual(Object.fromEntries(only.map((id) => [id, 'pass'])));
}, 120_000);

test('a tool answered past the reply budget while the session answers a ping is not judged: not exercised, naming the budget', async () => {
  const only = ['tool-server.tools.call-result-shape', 'tool-server.tools.arguments-absent'];
  const result = await runAgainst(await testServer('slow-async-calls', 'stdio'), { only }, quickSuite);
  for (const id of only) {
    const check = result.checks.find((c) => c.id === id)!;
    expect(check, id).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message, id).toMatch(
      /got no reply within the 1500 ms reply budget, though the session still answered a ping/,
    );
  }
}, 120_000);

test('a tool call after which the session answers nothing, though it did not end, is not judged; a session that ended fails', async () => {
  // The silence itself is the should check's to report (the hang-on-negative test above).
  const hung = await runAgainst(
    await testServer('hang-on-call', 'stdio'),
    { only: ['tool-server.tools.call-result-shape'] },
    quickSuite,
  );
  const check = hung.checks.find((c) => c.id === 'tool-server.tools.call-result-shape')!;
  expect(check).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
  expect(check.message).toMatch(
    /the session answered nothing, not even a ping, for 7500 ms, though it did not end/,
  );
  const died = await runAgainst(
    await testServer('exit-on-call', 'stdio'),
    { only: ['tool-server.tools.call-result-shape'] },
    quickSuite,
  );
  const dead = died.checks.find((c) => c.id === 'tool-server.tools.call-result-shape')!;
  expect(dead.status).toBe('fail');
  expect(dead.message).toMatch(/got no reply and the session ended/);
}, 120_000);
