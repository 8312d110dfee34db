import { expect, test } from 'vitest';
import { Journal, type JournalEntry } from '../../../src/mocks/messages/index.js';
import { CASE_KEYS, CASES, type CaseKey } from '../../../src/suites/agent/cases.js';
import { loopChecks } from '../../../src/suites/agent/checks/loop.js';
import { resultChecks } from '../../../src/suites/agent/checks/results.js';
import { retryChecks } from '../../../src/suites/agent/checks/retries.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import { bodyCut, describeRequest, turnsOf } from '../../../src/suites/agent/conversation.js';
import { journaledPost } from '../journaled-request.js';
import { fakeCaseResult } from './fake-result.js';

/** A journal that keeps 256 bytes of a body: a longer one is cut, as the mock's 1 MiB limit cuts a real one. */
const journal = new Journal({ bodyBytes: 256 });
const BASH = { type: 'bash_20250124', name: 'bash' };
/** Text no conversation needs: what makes a correct agent's body longer than the journal keeps. */
const LONG = 'x'.repeat(1024);

/** A request to the mock as the journal records it, with `body` kept as the journal keeps it. */
function journaled(seq: number, body: object, status = 200): JournalEntry {
  return journaledPost(journal, body, { seq, status });
}

/** A correct first request of case `key`, with a system prompt long enough to be cut in the journal. */
function longFirstRequest(key: CaseKey, seq = 0): JournalEntry {
  return journaled(seq, {
    model: 'm',
    max_tokens: 64,
    system: LONG,
    tools: [BASH],
    messages: [{ role: 'user', content: CASES[key].prompt }],
  });
}

const env = { signal: new AbortController().signal } as never;

function ctxOf(results: Partial<Record<CaseKey, AgentCaseResult>>): AgentCtx {
  const of = (key: CaseKey) => results[key] ?? fakeCaseResult(CASES[key], [], 1);
  return {
    result: async (key: CaseKey) => of(key),
    results: async (keys: readonly CaseKey[]) => keys.map(of),
  } as unknown as AgentCtx;
}

const check = (id: string) => [...loopChecks, ...resultChecks, ...retryChecks].find((c) => c.id === id)!;

/** Every case sent one correct request whose body the journal cut. */
const allCut = ctxOf(
  Object.fromEntries(CASE_KEYS.map((key) => [key, fakeCaseResult(CASES[key], [longFirstRequest(key)], 0)])),
);

test('the journal cuts a long body to text: the conversation helpers do not read it as one', () => {
  const entry = longFirstRequest('oneCall');
  expect(entry.bodyTruncated?.bytes).toBeGreaterThan(1024);
  expect(typeof entry.body).toBe('string');
  expect(turnsOf(entry)).toBeUndefined();
  expect(describeRequest(entry, 0)).toMatch(/^#1 \(a \d+-byte body, cut in the journal, status 200\)$/);
});

test.each(['agent.loop.first-request', 'agent.loop.tools-every-request', 'agent.loop.requests-valid'])(
  '%s does not judge a body the journal cut: not exercised, naming the cut',
  async (id) => {
    await expect(check(id).run(allCut, env)).rejects.toThrow(
      expect.objectContaining({
        name: 'NotExercised',
        message: expect.stringContaining(
          "request(s) were not judged because the mock's journal did not keep their whole bodies",
        ),
      }),
    );
  },
);

test('a cut body among whole ones is left out: the whole ones are judged, and pass', async () => {
  const whole = (key: CaseKey) =>
    journaled(0, {
      model: 'm',
      max_tokens: 64,
      tools: [BASH],
      messages: [{ role: 'user', content: CASES[key].prompt }],
    });
  const ctx = ctxOf(
    Object.fromEntries(
      CASE_KEYS.map((key) => [
        key,
        fakeCaseResult(CASES[key], key === 'oneCall' ? [longFirstRequest(key)] : [whole(key)], 0),
      ]),
    ),
  );
  for (const id of [
    'agent.loop.first-request',
    'agent.loop.tools-every-request',
    'agent.loop.requests-valid',
  ]) {
    await expect(check(id).run(ctx, env)).resolves.toBeUndefined();
  }
});

test('agent.loop.restart does not judge an answer whose body the journal cut', async () => {
  const spec = CASES.restart;
  const second = journaled(1, {
    model: 'm',
    max_tokens: 64,
    system: LONG,
    tools: [BASH],
    messages: [
      { role: 'user', content: spec.prompt },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_wc_restart_0_0',
            name: 'bash',
            input: { command: 'echo wc-restart', restart: true },
          },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_wc_restart_0_0', content: '' }] },
    ],
  });
  const ctx = ctxOf({ restart: fakeCaseResult(spec, [longFirstRequest('restart'), second], 0) });
  await expect(check('agent.loop.restart').run(ctx, env)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining(
        "case restart, request 2: the mock's journal kept only the start of its",
      ),
    }),
  );
});

test('a retry whose body the journal cut is not compared, and does not pass either', async () => {
  const spec = CASES.retriedErrors;
  const first = journaled(
    0,
    { model: 'm', max_tokens: 64, tools: [BASH], messages: [{ role: 'user', content: spec.prompt }] },
    529,
  );
  const retry = longFirstRequest('retriedErrors', 1);
  const ctx = ctxOf({ retriedErrors: fakeCaseResult(spec, [first, retry], 1) });
  await expect(check('agent.loop.retries-overloaded').run(ctx, env)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringMatching(
        /^request 2 cannot be compared with the other try: the mock's journal kept only/,
      ),
    }),
  );
});

test('follow-up checks with only cut follow-ups say so', async () => {
  await expect(check('agent.loop.history-kept').run(allCut, env)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining(
        "were not judged because the mock's journal did not keep their whole bodies",
      ),
    }),
  );
});

test('a body the journal withheld (it presented more secrets than the journal scrubs) is not judged either', () => {
  const entry = longFirstRequest(CASE_KEYS[0]!, 90);
  const withheld: JournalEntry = {
    ...entry,
    bodyTruncated: undefined,
    bodyWithheld: { bytes: 4096, secrets: 40 },
  };
  expect(turnsOf(withheld)).toBeUndefined();
  expect(bodyCut(withheld)).toBe(
    "the mock's journal withheld its 4096-byte body, which presented 40 secret values, too little to judge",
  );
  expect(describeRequest(withheld, 0)).toContain('a 4096-byte body, withheld from the journal');
});
