import { expect, test } from 'vitest';
import { createToolServerSuite } from '../../../src/suites/tool-server/index.js';
import { quickSuite, runAgainst, statusById, testServer } from './helpers.js';

// The generated-arguments property judges a server dead only when a call, the ping after it
// and a longer wait all go unanswered. A server stalled for a while (a machine under load,
// simulated: the test server sleeps 5 s, past the 1.5 s reply budget of the call and of the
// ping) is alive, and the must check passes; a server that stops answering for good still fails.

const ONLY = ['tool-server.tools.generated-arguments', 'tool-server.tools.generated-arguments-answered'];

test('a server stalled past the reply budget of a call and a ping is not judged dead, and its late answer counts', async () => {
  const result = await runAgainst(await testServer('stall-on-negative', 'stdio'), { only: ONLY }, quickSuite);
  expect(statusById(result)).toEqual({
    'tool-server.tools.generated-arguments': 'pass',
    'tool-server.tools.generated-arguments-answered': 'pass',
  });
}, 120_000);

test('a server that stops answering after a call (alive, silent) still fails generated-arguments', async () => {
  const result = await runAgainst(await testServer('hang-on-negative', 'stdio'), { only: ONLY }, quickSuite);
  const check = result.checks.find((c) => c.id === 'tool-server.tools.generated-arguments')!;
  expect(check.status).toBe('fail');
  expect(check.message).toMatch(/stopped answering/);
  const answered = result.checks.find((c) => c.id === 'tool-server.tools.generated-arguments-answered')!;
  expect(answered).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
  expect(answered.message).toMatch(/the calls stopped after \d+ at the failure/);
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
