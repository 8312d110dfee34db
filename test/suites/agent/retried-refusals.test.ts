import { expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { type AgentCase, CASES } from '../../../src/suites/agent/cases.js';
import { loopChecks } from '../../../src/suites/agent/checks/loop.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import {
  expectExit,
  expectRequestCount,
  loopRequests,
  runContext,
} from '../../../src/suites/agent/expect.js';
import { fakeCaseResult } from './fake-result.js';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const P = 'agent.';
const ENV = { signal: new AbortController().signal } as never;
const accepted = loopChecks.find((c) => c.id === `${P}loop.requests-accepted`)!;

/** A request the mock answered `status` without reading its body; `key`: whether it carried the run's key. */
function unread(seq: number, status: number, key = true, headers: Record<string, string> = {}): JournalEntry {
  return {
    seq,
    status,
    method: 'POST',
    url: '/v1/messages',
    headers: { host: '127.0.0.1:4000', ...headers },
    body: undefined,
    configuredKeyIn: key ? ['x-api-key'] : [],
    outcome: 'completed',
  } as unknown as JournalEntry;
}

function served(seq: number): JournalEntry {
  return {
    seq,
    status: 200,
    method: 'POST',
    url: '/v1/messages',
    headers: { host: '127.0.0.1:4000' },
    body: { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] },
    configuredKeyIn: ['x-api-key'],
    outcome: 'completed',
  } as unknown as JournalEntry;
}

/** The result of a case as the suite makes it from the mock's `journal` (loopRequests). */
function caseOf(spec: AgentCase, journal: JournalEntry[], exitCode: number): AgentCaseResult {
  const { requests, retriedRefusals } = loopRequests(journal);
  return { ...fakeCaseResult(spec, requests, exitCode), retriedRefusals };
}

test('a refusal before the body was read, followed by a request whose body was read, is no turn; one nothing got past is', () => {
  const budget = unread(0, 529);
  expect(loopRequests([budget, served(1), served(2)])).toEqual({
    requests: [served(1), served(2)],
    retriedRefusals: [budget],
  });
  // The last request, refused: the agent went no further, the case was cut short there.
  const last = unread(2, 529);
  expect(loopRequests([served(0), served(1), last])).toEqual({
    requests: [served(0), served(1), last],
    retriedRefusals: [],
  });
  // Refused again and again, never read: each stays, and the first cuts the case short.
  const again = [unread(0, 529), unread(1, 529)];
  expect(loopRequests(again).requests).toEqual(again);
  // No key, or another path: the agent's fault, judged where it stands (auth.key-sent, loop.endpoint).
  const noKey = unread(0, 401, false);
  const elsewhere = { ...unread(1, 404), url: '/v1/complete' } as JournalEntry;
  expect(loopRequests([noKey, elsewhere, served(2)]).requests).toEqual([noKey, elsewhere, served(2)]);
});

test.each([
  [529, 'the body budget'],
  [413, 'the size limit, the agent sending a smaller body'],
  [403, 'the host guard'],
  [415, 'a Content-Encoding the mock does not decode'],
])(
  'a request the mock refused unread with %i (%s) and the agent sent again: the loop is judged from the retry on',
  (status, _why) => {
    // The breaker's case: three served requests, then exit 3; a refused first try before them.
    const journal = [unread(0, status), served(1), served(2), served(3)];
    const result = caseOf(CASES.consecutiveFailures, journal, 3);
    expect(() => expectRequestCount(result, 3, 'three failures')).not.toThrow();
    expect(() => expectExit(result, 3, 'three failures')).not.toThrow();
    expect(runContext(result)).toContain(
      `1 request(s) the mock refused before reading the body (statuses ${status}), each followed by one it read: not counted as turns`,
    );
    // A loop that went wrong after the retry is still failed.
    const wrong = caseOf(CASES.consecutiveFailures, journal, 0);
    expect(() => expectExit(wrong, 3, 'three failures')).toThrow(
      expect.objectContaining({ name: 'CheckFailure', expected: 'exit 3', actual: 'exit 0' }),
    );
  },
);

test('a 413 the agent got past by sending a smaller body: requests-accepted still warns of the request it sent', async () => {
  const tooLarge = unread(0, 413, true, { 'content-length': String(33 * 1024 * 1024) });
  const ctx = {
    results: async (keys: readonly (keyof typeof CASES)[]) =>
      keys.map((key) => caseOf(CASES[key], [tooLarge, served(1)], 0)),
  } as unknown as AgentCtx;
  await expect(accepted.run(ctx, ENV)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      message: expect.stringContaining(
        'a request is larger than the real API accepts: the mock refused it with 413 request_too_large before reading it, as the real API refuses a request over its 32 MiB limit (the spec shows no request size limit); the agent then sent one the mock read',
      ),
      expected: 'a request body of at most 32 MiB',
    }),
  );
});

test('an agent that sends its first request with a 33 MiB system prompt, then again without: the loop is judged, requests-accepted warns', async () => {
  const result = await runAgainst(nodeCommand('./broken/shrinks-after-too-large.mjs'), {
    only: [`${P}loop.requests-accepted`, `${P}loop.ends-without-tool-use`, `${P}loop.history-kept`],
  });
  expect(statusById(result)).toEqual({
    [`${P}loop.requests-accepted`]: 'warn',
    [`${P}loop.ends-without-tool-use`]: 'pass',
    [`${P}loop.history-kept`]: 'pass',
  });
}, 180_000);
