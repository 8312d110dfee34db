import { expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { CASES } from '../../../src/suites/agent/cases.js';
import { retryChecks } from '../../../src/suites/agent/checks/retries.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import { fakeCaseResult } from './fake-result.js';

const PROMPT = { role: 'user', content: 'wirecheck case retried-errors: use the bash tool as you see fit.' };
const TOOL_USE = {
  type: 'tool_use',
  id: 'toolu_wc_retried_errors_1_0',
  name: 'bash',
  input: { command: 'echo wc' },
};
const AFTER_CALL = [
  PROMPT,
  { role: 'assistant', content: [TOOL_USE] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: TOOL_USE.id, content: 'wc' }] },
];

/** The turns a conforming agent sends: the prompt (requests 1 and 2), then the tool call's result. */
const conforming = (i: number) => (i < 2 ? [PROMPT] : AFTER_CALL);

/** A run of case retried-errors whose requests got `statuses`, each sending `turns(i)`. */
function retriedRun(statuses: number[], turns: (i: number) => unknown[] = conforming): AgentCaseResult {
  const requests = statuses.map(
    (status, seq) =>
      ({
        seq,
        status,
        method: 'POST',
        url: '/v1/messages',
        body: { model: 'm', max_tokens: 64, messages: turns(seq) },
        configuredKeyIn: ['x-api-key'],
      }) as unknown as JournalEntry,
  );
  return fakeCaseResult(CASES.retriedErrors, requests, 1);
}

const env = { signal: new AbortController().signal } as never;
const ctxOf = (result: AgentCaseResult) => ({ result: async () => result }) as unknown as AgentCtx;
const judge = (id: 'overloaded' | 'rate-limited', result: AgentCaseResult) =>
  retryChecks.find((c) => c.id === `agent.loop.retries-${id}`)!.run(ctxOf(result), env);

test('the case answers 529 to request 1 and 429 to request 3: an agent that sends each again once passes both', async () => {
  expect(CASES.retriedErrors.step(0)).toEqual({ serviceError: 'overloaded' });
  expect(CASES.retriedErrors.step(1)).toHaveProperty('calls');
  expect(CASES.retriedErrors.step(2)).toEqual({ serviceError: 'rateLimited' });
  expect(CASES.retriedErrors.step(3)).toHaveProperty('text');
  // The 429's retry is compared with request 3, not request 1: its conversation has three turns.
  const served = retriedRun([529, 200, 429, 200]);
  await expect(judge('overloaded', served)).resolves.toBeUndefined();
  await expect(judge('rate-limited', served)).resolves.toBeUndefined();
});

test('an agent that gives up after the 429 fails rate-limited only', async () => {
  const result = retriedRun([529, 200, 429]);
  await expect(judge('overloaded', result)).resolves.toBeUndefined();
  await expect(judge('rate-limited', result)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      message: expect.stringMatching(
        /^the agent did not send request 3 again after HTTP 429 rate_limit_error/,
      ),
    }),
  );
});

test('an agent that gives up after the 529 fails overloaded; rate-limited is not exercised and names the check that judges', async () => {
  const result = retriedRun([529]);
  await expect(judge('overloaded', result)).rejects.toThrow(
    expect.objectContaining({ name: 'CheckFailure' }),
  );
  await expect(judge('rate-limited', result)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining(
        'the mock answered no request 429: the agent did not send request 1 again after HTTP 529 overloaded_error, which agent.loop.retries-overloaded judges',
      ),
    }),
  );
});

test('a retry that is not the same conversation fails, naming the error it followed', async () => {
  const changed = retriedRun([529, 200, 429, 200], (i) =>
    i === 3 ? [...AFTER_CALL, { role: 'user', content: 'again' }] : conforming(i),
  );
  await expect(judge('overloaded', changed)).resolves.toBeUndefined();
  await expect(judge('rate-limited', changed)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      message: expect.stringContaining(
        'the request after HTTP 429 rate_limit_error is not the same conversation again',
      ),
    }),
  );
});

test('a request answered something else than the script says is not exercised', async () => {
  await expect(judge('overloaded', retriedRun([200]))).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('request 1 was answered 200'),
    }),
  );
  await expect(judge('overloaded', retriedRun([]))).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('the agent sent 0 request(s)'),
    }),
  );
  await expect(judge('rate-limited', retriedRun([529, 200, 200]))).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('request 3 was answered 200'),
    }),
  );
});

test('a case whose script answers no such error is a harness bug, not an error of the target', async () => {
  // The one-call case scripts no service error: asking it for one is a bug of the suite.
  const result = fakeCaseResult(CASES.oneCall, [], 0);
  await expect(judge('rate-limited', result)).rejects.toThrow(
    expect.objectContaining({
      name: 'HarnessBug',
      message:
        'agent.loop.retries-rate-limited: the script of case one-call answers no request HTTP 429 rate_limit_error in its 2 steps, so there is no retry to judge',
    }),
  );
});

test('a retry the mock refused unread (its key dropped) is not compared, and the check says who judges it', async () => {
  const run = retriedRun([529, 401]);
  const retry = run.requests[1] as unknown as Record<string, unknown>;
  retry.configuredKeyIn = [];
  delete retry.body;
  await expect(judge('overloaded', run)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('the mock refused request 2 (status 401: no key)'),
    }),
  );
});

test('a retry that carries no turns is never a pass', async () => {
  const run = retriedRun([529, 200]);
  (run.requests[1] as unknown as { body: unknown }).body = { model: 'm', max_tokens: 64 };
  await expect(judge('overloaded', run)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('request 2 carries no turns'),
    }),
  );
});
