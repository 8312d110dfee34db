import { expect, test } from 'vitest';
import { quickSuite, runAgainst, testServer } from './helpers.js';

// The session model calls an echo tool on many sessions at once and reads each reply's text:
// another session's text is a misrouting; a text of its own kind (changed, or refused) is not.
const ID = 'tool-server.sse.session-model';

test('an echo tool that gives its text back upper-cased is no misrouting: the session model passes', async () => {
  const result = await runAgainst(await testServer('echo-upper', 'sse'), { only: [ID] }, quickSuite);
  expect(result.checks.map((c) => [c.id, c.status])).toEqual([[ID, 'pass']]);
}, 120_000);

test('an echo tool that gives back another session’s text, under the right id, fails the session model', async () => {
  const result = await runAgainst(await testServer('echo-swapped', 'sse'), { only: [ID] }, quickSuite);
  const check = result.checks.find((c) => c.id === ID);
  expect(check?.status).toBe('fail');
  expect(check?.message).toMatch(
    /came back without its own text wirecheck-S\d+-\d+, with session S\d+'s wirecheck-S\d+-\d+/,
  );
}, 120_000);
