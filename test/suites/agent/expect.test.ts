import { expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { CASES } from '../../../src/suites/agent/cases.js';
import { breakerChecks } from '../../../src/suites/agent/checks/breaker.js';
import { capChecks } from '../../../src/suites/agent/checks/cap.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import {
  asksForOperator,
  expectExit,
  expectNotCutShort,
  expectRequestCount,
} from '../../../src/suites/agent/expect.js';
import { fakeCaseResult } from './fake-result.js';

const REFUSAL = 'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks';

/** A run of case consecutive-failures (3 requests, the breaker's) whose requests got `statuses`. */
function caseRun(statuses: number[], exitCode: number, url = '/v1/messages'): AgentCaseResult {
  const requests = statuses.map(
    (status, seq) =>
      ({
        seq,
        status,
        method: 'POST',
        // The last request goes to `url`, the others to the messages endpoint.
        url: seq === statuses.length - 1 ? url : '/v1/messages',
        body: {},
        // A request refused for want of the key carried none; every other one carried it.
        configuredKeyIn: status === 401 ? [] : ['x-api-key'],
        ...(status === 400 ? { bodyError: REFUSAL } : {}),
      }) as unknown as JournalEntry,
  );
  return fakeCaseResult(CASES.consecutiveFailures, requests, exitCode);
}

test('a case cut short by a refused request is not exercised, naming the request and the checks that judge it', () => {
  const result = caseRun([200, 400], 1);
  expect(() => expectRequestCount(result, 3, 'three failures')).toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining(`the mock refused request 2 (status 400: ${REFUSAL})`),
    }),
  );
  expect(() => expectExit(result, 3, 'three failures')).toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('agent.loop.requests-valid'),
    }),
  );
});

test('a refused request the agent should not have sent excuses nothing: the check fails', () => {
  // Three requests were due; the fourth, refused, was one too many.
  const result = caseRun([200, 200, 200, 400], 1);
  expect(() => expectRequestCount(result, 3, 'three failures')).toThrow(
    expect.objectContaining({ name: 'CheckFailure', actual: '4 requests' }),
  );
  expect(() => expectExit(result, 3, 'three failures', 3)).toThrow(
    expect.objectContaining({ name: 'CheckFailure', expected: 'exit 3', actual: 'exit 1' }),
  );
});

test('a request refused for want of the key is not exercised either, and names auth.key-sent', () => {
  const result = caseRun([200, 401], 1);
  expect(() => expectExit(result, 3, 'three failures')).toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('agent.auth.key-sent judges'),
    }),
  );
});

test('a request to a path the mock does not serve is not exercised, and names agent.loop.endpoint', () => {
  const result = caseRun([200, 404], 1, '/messages');
  expect(() => expectExit(result, 3, 'three failures')).toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringMatching(
        /status 404: POST \/messages, not POST \/v1\/messages.*agent\.loop\.endpoint judges/,
      ),
    }),
  );
  // A query string (the SDK's ?beta=true) is no other path.
  const beta = caseRun([200, 500], 1, '/v1/messages?beta=true');
  expect(() => expectExit(beta, 3, 'three failures')).toThrow(
    expect.objectContaining({ name: 'CheckFailure' }),
  );
});

test('a request refused with the key and a valid body (a scripted error) excuses nothing', () => {
  const result = caseRun([200, 500], 1);
  expect(() => expectExit(result, 3, 'three failures')).toThrow(
    expect.objectContaining({ name: 'CheckFailure', expected: 'exit 3', actual: 'exit 1' }),
  );
});

test('a case whose requests were all answered is judged as it is', () => {
  const result = caseRun([200, 200], 0);
  expect(() => expectNotCutShort(result, 'the breaker')).not.toThrow();
  expect(() => expectRequestCount(result, 3, 'three failures')).toThrow(
    expect.objectContaining({ name: 'CheckFailure', actual: '2 requests' }),
  );
});

test('refused requests are no loop: three is no halt at the third failure, four no turn cap', async () => {
  const env = { signal: new AbortController().signal } as never;
  const ctxOf = (result: AgentCaseResult) => ({ result: async () => result }) as unknown as AgentCtx;
  const check = (id: string) => [...breakerChecks, ...capChecks].find((c) => c.id === `agent.${id}`)!;
  const three = caseRun([401, 401, 401], 1);
  await expect(check('breaker.halts-at-third').run(ctxOf(three), env)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining('agent.auth.key-sent'),
    }),
  );
  const four = { ...caseRun([401, 401, 401, 401], 0), spec: CASES.capped };
  await expect(check('cap.exact').run(ctxOf(four), env)).rejects.toThrow(
    expect.objectContaining({ name: 'NotExercised' }),
  );
  // Served, the same counts pass.
  await expect(
    check('breaker.halts-at-third').run(ctxOf(caseRun([200, 200, 200], 3)), env),
  ).resolves.toBeUndefined();
});

test.each([
  ['Circuit breaker open: 3 commands failed in a row. Human intervention needed.'],
  ['Too many failures; ask the user for help'],
  ['Need assistance: 3 commands failed'],
  ['waiting for user input'],
  ['[assistant] stopped: an operator should review the commands'],
  ['circuit breaker tripped after 3 consecutive failures: halting. Please investigate.'],
  ['3 commands failed: escalating to on-call'],
  ['Fix the environment and re-run.'],
])('a line asking someone to act: %s', (line) => expect(asksForOperator(line)).toBe(true));

test.each([
  ['[assistant] [{"type":"tool_use","name":"bash"}]'],
  ['sending user turn with 1 tool_result blocks'],
  ['{"role":"assistant","content":"Running it."}'],
  ['user: run false'],
  ['assistant reply: tool_use bash'],
  ['please wait: calling the model'],
  ['fix: retrying the request'],
])('a trace of the conversation, which asks nobody: %s', (line) => expect(asksForOperator(line)).toBe(false));

test("agent.cap.default: an agent still going when the case's time ran out reached no cap to judge; one that exited at its cap passes", async () => {
  const env = { signal: new AbortController().signal } as never;
  const check = capChecks.find((c) => c.id === 'agent.cap.default')!;
  const served = Array.from(
    { length: 15 },
    (_, seq) =>
      ({
        seq,
        status: 200,
        method: 'POST',
        url: '/v1/messages',
        body: {},
        configuredKeyIn: ['x-api-key'],
      }) as unknown as JournalEntry,
  );
  const ctxOf = (result: AgentCaseResult) => ({ result: async () => result }) as unknown as AgentCtx;
  const slow = fakeCaseResult(CASES.defaultCap, served, 0);
  const timedOut = { ...slow, run: { ...slow.run, timedOut: true, exitCode: null } };
  await expect(check.run(ctxOf(timedOut), env)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining("when the case's time ran out"),
    }),
  );
  await expect(check.run(ctxOf(slow), env)).resolves.toBeUndefined();
});
