import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import type { CheckStatus, SuiteResult } from '../../../src/harness/results.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import {
  createMessagesServiceSuite,
  messagesServiceSuite,
} from '../../../src/suites/messages-service/index.js';
import { type Break, type FakeService, startFakeService } from './fake-service.js';

const KEY_ENV = 'WIRECHECK_TEST_MESSAGES_SERVICE_KEY';
const KEY = 'wc-test-key-messages-service';
const P = 'messages-service.';

/** The suite without the pause after an abort: the fake needs none, and the variants run many times. */
const quickSuite = createMessagesServiceSuite({ abortSettleMs: 0 });

async function runAgainst(
  breaks: readonly Break[],
  options: { runs?: number; only?: string[]; suite?: typeof quickSuite } = {},
): Promise<{ result: SuiteResult; fake: FakeService }> {
  const fake = await startFakeService({ apiKey: KEY, breaks });
  try {
    const result = await runSuite(
      options.suite ?? quickSuite,
      { baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV },
      { seed: 20261101, runs: options.runs ?? 10, ...(options.only ? { only: options.only } : {}) },
    );
    return { result, fake };
  } finally {
    await fake.close();
  }
}

/** Checks that did not pass, by id without the suite prefix. */
function notPassing(result: SuiteResult): Record<string, CheckStatus> {
  return Object.fromEntries(
    result.checks.filter((c) => c.status !== 'pass').map((c) => [c.id.slice(P.length), c.status]),
  );
}

beforeAll(() => {
  process.env[KEY_ENV] = KEY;
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

describe('the check catalogue', () => {
  test('every check id is unique, names the suite and cites a spec clause', () => {
    const ids = messagesServiceSuite.checks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const check of messagesServiceSuite.checks) {
      expect(check.id).toMatch(/^messages-service\.[a-z-]+\.[a-z0-9-]+$/);
      expect(check.clause.length).toBeGreaterThan(0);
      expect(check.description.length).toBeGreaterThan(0);
    }
  });

  test('rules the spec leaves unstated only warn', () => {
    const should = messagesServiceSuite.checks
      .filter((c) => c.level === 'should')
      .map((c) => c.id.slice(P.length));
    expect(should.sort()).toEqual(
      [
        'agreement.content',
        'auth.missing-key-401',
        'errors.invalid-400',
        'http.request-id',
        'stream.abort-keeps-service-healthy',
        'stream.unknown-events',
      ].sort(),
    );
  });
});

describe('opening a target', () => {
  test('a key variable that is not set makes the target unavailable, naming the variable', async () => {
    const fake = await startFakeService({ apiKey: KEY });
    try {
      await expect(
        messagesServiceSuite.open(
          { baseUrl: fake.baseUrl, apiKeyEnv: 'WIRECHECK_TEST_UNSET_KEY_VARIABLE' },
          { seed: 1, runs: 1, full: false },
        ),
      ).rejects.toBeInstanceOf(TargetUnavailable);
      await expect(
        messagesServiceSuite.open(
          { baseUrl: fake.baseUrl, apiKeyEnv: 'WIRECHECK_TEST_UNSET_KEY_VARIABLE' },
          { seed: 1, runs: 1, full: false },
        ),
      ).rejects.toThrow(/WIRECHECK_TEST_UNSET_KEY_VARIABLE is not set/);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });

  test('a service that cannot be reached makes the target unavailable', async () => {
    const fake = await startFakeService({ apiKey: KEY });
    const { baseUrl } = fake;
    await fake.close();
    const error = await messagesServiceSuite
      .open({ baseUrl, apiKeyEnv: KEY_ENV }, { seed: 1, runs: 1, full: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetUnavailable);
    expect((error as Error).message).toMatch(/cannot be reached: POST .*\/v1\/messages failed/);
  });

  test('a service that rejects the key makes the target unavailable after one probe', async () => {
    const fake = await startFakeService({ apiKey: 'another-key' });
    try {
      const error = await messagesServiceSuite
        .open({ baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV }, { seed: 1, runs: 1, full: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TargetUnavailable);
      expect((error as Error).message).toMatch(new RegExp(`rejected the key from ${KEY_ENV}: HTTP 401`));
      expect(fake.requests).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  test('the probe reply is reused by the checks, and each shared request is sent once', async () => {
    const fake = await startFakeService({ apiKey: KEY });
    try {
      await runSuite(
        createMessagesServiceSuite(),
        { baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV },
        {
          seed: 1,
          runs: 1,
          only: ['messages-service.http.', 'messages-service.buffered.', 'messages-service.stream.order'],
        },
      );
      // probe (= buffered text), buffered tool, text stream, tool stream
      expect(fake.requests).toHaveLength(4);
    } finally {
      await fake.close();
    }
  });
});

describe('requests sent', () => {
  test('the three checks that judge invalid bodies send each generated body once', async () => {
    const fake = await startFakeService({ apiKey: KEY });
    try {
      const result = await runSuite(
        quickSuite,
        { baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV },
        { seed: 5, runs: 10, only: ['messages-service.errors.'] },
      );
      expect(result.checks.map((c) => c.status)).toEqual(['pass', 'pass', 'pass']);
      // the probe, then at most one request per generated body (equal bodies are sent once)
      expect(fake.requests.length).toBeGreaterThan(1);
      expect(fake.requests.length).toBeLessThanOrEqual(1 + 10);
    } finally {
      await fake.close();
    }
  });

  test('HTTP properties run min(runs, maxHttpRuns) times', async () => {
    const fake = await startFakeService({ apiKey: KEY });
    try {
      await runSuite(
        createMessagesServiceSuite({ maxHttpRuns: 3 }),
        { baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV },
        { seed: 5, runs: 100, only: ['messages-service.requests.valid-accepted'] },
      );
      expect(fake.requests).toHaveLength(1 + 3);
    } finally {
      await fake.close();
    }
  });
});

describe('a compliant service', () => {
  test('passes every check', async () => {
    const { result } = await runAgainst([], { runs: 100, suite: messagesServiceSuite });
    expect(notPassing(result)).toEqual({});
    expect(result.summary.passed).toBe(messagesServiceSuite.checks.length);
  });
});

/**
 * Each broken variant: the check(s) its rule maps to, with the status they must get, and
 * every other check that may not pass (a broken buffered shape also breaks the replies
 * other checks need). `maybe`: property checks whose verdict depends on the generated cases.
 */
const VARIANTS: { breaks: Break; expected: Record<string, CheckStatus>; maybe?: string[] }[] = [
  { breaks: 'buffered-content-type', expected: { 'http.buffered-content-type': 'fail' } },
  { breaks: 'stream-content-type', expected: { 'http.stream-content-type': 'fail' } },
  {
    breaks: 'event-name-mismatch',
    expected: { 'stream.frame-format': 'fail', 'stream.unknown-events': 'warn' },
  },
  {
    breaks: 'out-of-order',
    expected: {
      'stream.order': 'fail',
      'stream.reduces-to-message': 'fail',
      'agreement.input-tokens': 'skip',
      'agreement.content': 'skip',
      'tools.partial-json': 'skip',
    },
    maybe: ['requests.valid-accepted'],
  },
  { breaks: 'usage-in-delta', expected: { 'stream.no-usage-in-deltas': 'fail' } },
  {
    breaks: 'invalid-partial-json',
    expected: { 'tools.partial-json': 'fail', 'stream.reduces-to-message': 'fail', 'stream.order': 'skip' },
  },
  { breaks: 'end-turn-with-tool-use', expected: { 'tools.stop-reason': 'fail' } },
  {
    breaks: 'buffered-shape',
    expected: {
      'buffered.message-shape': 'fail',
      'agreement.input-tokens': 'skip',
      'agreement.content': 'skip',
      'tools.follow-up': 'fail',
      'tools.two-results': 'fail',
      'stream.abort-keeps-service-healthy': 'warn',
    },
    maybe: ['requests.valid-accepted'],
  },
  {
    breaks: 'accepts-missing-key',
    expected: { 'auth.missing-key-rejected': 'fail', 'auth.missing-key-401': 'skip' },
  },
  { breaks: 'missing-key-403', expected: { 'auth.missing-key-401': 'warn' } },
  { breaks: 'accepts-invalid-body', expected: { 'errors.invalid-rejected': 'fail' } },
  {
    breaks: 'error-body-without-type',
    expected: { 'errors.error-body': 'fail', 'auth.missing-key-401': 'warn' },
  },
  {
    breaks: 'message-start-with-content',
    expected: {
      'stream.message-start': 'fail',
      'stream.reduces-to-message': 'fail',
      'stream.order': 'skip',
      'agreement.input-tokens': 'skip',
      'agreement.content': 'skip',
      'tools.partial-json': 'skip',
    },
    maybe: ['requests.valid-accepted'],
  },
  {
    breaks: 'never-tool-use',
    expected: { 'tools.stop-reason': 'skip', 'tools.partial-json': 'skip', 'tools.bash-input': 'skip' },
  },
  { breaks: 'unknown-event', expected: { 'stream.unknown-events': 'warn' } },
  {
    breaks: 'bad-ping',
    expected: { 'stream.ping-shape': 'fail', 'stream.frame-format': 'fail', 'stream.unknown-events': 'warn' },
  },
  { breaks: 'no-request-id', expected: { 'http.request-id': 'warn' } },
  { breaks: 'stream-input-tokens-differ', expected: { 'agreement.input-tokens': 'fail' } },
  {
    breaks: 'rejects-tool-results',
    expected: { 'tools.follow-up': 'fail', 'tools.two-results': 'fail' },
    maybe: ['requests.valid-accepted'],
  },
];

describe('a broken service fails the check of the rule it breaks', () => {
  test.each(VARIANTS)('$breaks', async ({ breaks, expected, maybe = [] }) => {
    const { result } = await runAgainst([breaks]);
    const got = notPassing(result);
    for (const id of maybe) delete got[id];
    expect(got).toEqual(expected);
  });

  test('a service that stops serving after a client aborts a stream gets a warning', async () => {
    const id = `${P}stream.abort-keeps-service-healthy`;
    const { result } = await runAgainst(['dies-after-abort'], { only: [id] });
    expect(result.checks).toHaveLength(1);
    expect(result.checks[0]).toMatchObject({ id, status: 'warn' });
    expect(result.checks[0]!.message).toMatch(/after the abort.*HTTP 500/);
  });

  test('a skip says why: a service that never calls the tool', async () => {
    const { result } = await runAgainst(['never-tool-use']);
    const partial = result.checks.find((c) => c.id === `${P}tools.partial-json`);
    expect(partial?.message).toMatch(/never replied with a tool_use block/);
  });

  test('an order failure quotes the frame that broke the rule', async () => {
    const { result } = await runAgainst(['out-of-order']);
    const order = result.checks.find((c) => c.id === `${P}stream.order`);
    expect(order?.message).toMatch(
      /text stream, frame \d+ «event: message_delta \| data: .*»: expected content_block_delta or content_block_stop, got message_delta/,
    );
  });
});
