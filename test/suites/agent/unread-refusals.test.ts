import { request } from 'node:http';
import { expect, test } from 'vitest';
import {
  DEFAULT_BODY_LIMIT,
  type JournalEntry,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { CASES } from '../../../src/suites/agent/cases.js';
import { breakerChecks } from '../../../src/suites/agent/checks/breaker.js';
import { capChecks } from '../../../src/suites/agent/checks/cap.js';
import { loopChecks } from '../../../src/suites/agent/checks/loop.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import { expectExit, refusalOf } from '../../../src/suites/agent/expect.js';
import { fakeCaseResult } from './fake-result.js';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const P = 'agent.';
const KEY = 'sk-wirecheck-unread-refusals';
const ENV = { signal: new AbortController().signal } as never;
const CHECKS = [...loopChecks, ...breakerChecks, ...capChecks];
const check = (id: string) => CHECKS.find((c) => c.id === `${P}${id}`)!;

/** A request the mock answered `status` without reading its body (the key sent, the path right). */
function unread(seq: number, status: number, headers: Record<string, string> = {}): JournalEntry {
  return {
    seq,
    status,
    method: 'POST',
    url: '/v1/messages',
    headers: { host: '127.0.0.1:4000', ...headers },
    body: undefined,
    configuredKeyIn: ['x-api-key'],
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
    body: { model: 'm', max_tokens: 1, messages: [] },
    configuredKeyIn: ['x-api-key'],
    outcome: 'completed',
  } as unknown as JournalEntry;
}

/** Every case of the suite answered the same: `entries` of each, the agent exiting `exitCode`. */
function ctxOf(entries: (key: string) => JournalEntry[], exitCode: number): AgentCtx {
  const resultOf = (key: keyof typeof CASES): AgentCaseResult =>
    fakeCaseResult(CASES[key], entries(key), exitCode);
  return {
    result: async (key: keyof typeof CASES) => resultOf(key),
    results: async (keys: readonly (keyof typeof CASES)[]) => keys.map(resultOf),
  } as unknown as AgentCtx;
}

/** Sends one request to the mock with a body of `bytes` bytes and the given Host; resolves with its status. */
function post(url: string, bytes: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/messages`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': KEY,
          'anthropic-version': '2023-06-01',
          ...(host === undefined ? {} : { host }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // A server that answers before the whole body is sent may close the socket under it.
    req.on('error', () => resolve(-1));
    req.on('timeout', () => reject(new Error(`no answer from ${url} to a ${bytes}-byte body`)));
    req.end(Buffer.alloc(bytes, 0x20));
  });
}

test("the mock's journal of a 413 and of a host-guard 403: the body unread, the key and path right, each a refusal", async () => {
  const mock = await startMockMessagesService({ apiKey: KEY });
  try {
    await post(mock.url, DEFAULT_BODY_LIMIT + 1);
    await post(mock.url, 2, 'example.invalid');
    const [tooLarge, hostRefused] = mock.journal.entries();
    expect(tooLarge).toMatchObject({ status: 413, body: undefined, configuredKeyIn: ['x-api-key'] });
    expect(hostRefused).toMatchObject({ status: 403, body: undefined, configuredKeyIn: ['x-api-key'] });
    expect(refusalOf(tooLarge!)).toMatchObject({
      why: expect.stringContaining("over the mock's limit of 32 MiB, the real API's request size limit"),
      judgedBy: 'agent.loop.requests-accepted judges that request',
    });
    expect(refusalOf(hostRefused!)).toMatchObject({
      why: expect.stringContaining(`the mock's host guard refused Host "example.invalid"`),
      judgedBy: expect.stringContaining("no check judges that request: the guard is wirecheck's own"),
    });
  } finally {
    await mock.close();
  }
}, 30_000);

test.each([
  [413, 'agent.loop.requests-accepted judges that request'],
  [403, "the guard is wirecheck's own"],
  [529, "the budget is the mock's own"],
  [500, 'no check judges that request'],
])(
  'a case whose first request got %i, its body unread, is cut short: its exit status is not judged',
  (status, judge) => {
    const result = fakeCaseResult(CASES.consecutiveFailures, [unread(0, status)], 1);
    expect(() => expectExit(result, 3, 'three failures')).toThrow(
      expect.objectContaining({
        name: 'NotExercised',
        message: expect.stringMatching(
          new RegExp(
            `the mock refused request 1 \\(status ${status}: .*\\), so the loop ended before .*${judge}`,
          ),
        ),
      }),
    );
  },
);

test('a scripted error on a body the mock read is a served turn, and cuts nothing short', () => {
  const scripted = { ...served(1), status: 500 } as JournalEntry;
  expect(refusalOf(scripted)).toBeUndefined();
  const result = fakeCaseResult(CASES.consecutiveFailures, [served(0), scripted], 1);
  expect(() => expectExit(result, 3, 'three failures')).toThrow(
    expect.objectContaining({ name: 'CheckFailure' }),
  );
});

test('an agent whose first request is over the size limit: the loop, cap and breaker checks are not exercised, requests-accepted warns', async () => {
  // The agent ends its loop at the 413, as an agent does on an error status.
  const ctx = ctxOf(() => [unread(0, 413, { 'content-length': String(33 * 1024 * 1024 + 200) })], 1);
  const loopCourse = [
    'loop.ends-without-tool-use',
    'loop.ends-whatever-stop-reason',
    'loop.other-tool-ends',
    'cap.honoured',
    'breaker.halts-at-third',
    'breaker.exit-status',
  ];
  for (const id of loopCourse) {
    await expect(check(id).run(ctx, ENV), id).rejects.toThrow(
      expect.objectContaining({ name: 'NotExercised', message: expect.stringContaining('status 413') }),
    );
  }
  const accepted = check('loop.requests-accepted');
  expect(accepted.level).toBe('should');
  await expect(accepted.run(ctx, ENV)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      message: expect.stringContaining(
        'request 1 is larger than the real API accepts: the mock refused it with 413 request_too_large before reading it, as the real API refuses a request over its 32 MiB limit',
      ),
      expected: 'a request body of at most 32 MiB',
    }),
  );
  // No body was read: the checks of a body name the 413, not a missing key or a wrong path.
  await expect(check('loop.requests-valid').run(ctx, ENV)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringMatching(
        /refused every request before reading it \(.*status 413: request_too_large/,
      ),
    }),
  );
});

test('an agent sending a Host the mock refuses: no cap or breaker failure, and the report names the host guard', async () => {
  // 50 requests refused alike: an agent that retries without end, as in the audit's run.
  const ctx = ctxOf(() => Array.from({ length: 50 }, (_, i) => unread(i, 403, { host: 'x' })), 1);
  for (const id of ['cap.honoured', 'breaker.halts-at-third', 'loop.ends-without-tool-use']) {
    await expect(check(id).run(ctx, ENV), id).rejects.toThrow(
      expect.objectContaining({
        name: 'NotExercised',
        message: expect.stringContaining(`status 403: the mock's host guard refused Host "x"`),
      }),
    );
  }
  await expect(check('loop.requests-accepted').run(ctx, ENV)).rejects.toThrow(
    expect.objectContaining({ name: 'NotExercised', message: expect.stringContaining('host guard') }),
  );
});

test('an agent whose first request carries a 33 MiB system prompt: no failure, requests-accepted warns, the loop not exercised', async () => {
  const result = await runAgainst(nodeCommand('./broken/oversized-first-request.mjs'), {
    only: [
      `${P}loop.requests-accepted`,
      `${P}loop.ends-without-tool-use`,
      `${P}cap.honoured`,
      `${P}breaker.halts-at-third`,
      `${P}runner.workdir`,
    ],
  });
  expect(statusById(result)).toEqual({
    [`${P}loop.requests-accepted`]: 'warn',
    [`${P}loop.ends-without-tool-use`]: 'skip',
    [`${P}cap.honoured`]: 'skip',
    [`${P}breaker.halts-at-third`]: 'skip',
    [`${P}runner.workdir`]: 'skip',
  });
  const accepted = result.checks.find((c) => c.id === `${P}loop.requests-accepted`)!;
  expect(accepted.message).toContain('request 1 is larger than the real API accepts');
}, 180_000);
