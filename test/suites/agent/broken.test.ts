import { describe, expect, test } from 'vitest';
import { MAX_CASE_REQUESTS } from '../../../src/suites/agent/context.js';
import { type ExpectedVerdicts, expectedStatuses, verdictPhrase } from '../../broken-verdicts.js';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const SUITE = 'agent';
const P = `${SUITE}.`;

/**
 * Each broken agent (broken/<name>.mjs: the independent agent with one flaw) runs the
 * checks of its rule plus neighbours it must still pass, so a failure is shown to come
 * from the flaw and not from a suite that fails everything.
 */
const CASES: ({ agent: string; flaw: string } & ExpectedVerdicts)[] = [
  {
    agent: 'no-resend-tools',
    flaw: 'sends tools on the first request only',
    fails: ['loop.tools-every-request', 'loop.requests-valid'],
    warns: ['loop.requests-accepted'],
    passes: ['loop.first-request', 'loop.history-kept', 'loop.assistant-turn', 'results.ids-match'],
  },
  {
    agent: 'result-turn-each',
    flaw: 'puts each tool_result in a user turn of its own',
    fails: ['results.one-user-turn', 'loop.requests-valid'],
    warns: ['loop.requests-accepted'],
    passes: ['results.ids-match', 'loop.assistant-turn', 'loop.tools-every-request', 'loop.history-kept'],
  },
  {
    agent: 'mismatched-ids',
    flaw: 'answers with tool_use ids of its own',
    fails: ['results.ids-match', 'loop.requests-valid'],
    warns: ['loop.requests-accepted'],
    passes: ['results.one-user-turn', 'loop.assistant-turn', 'loop.tools-every-request'],
  },
  {
    agent: 'drop-assistant-turn',
    flaw: 'leaves the assistant turn out of the follow-up',
    fails: ['loop.assistant-turn', 'loop.requests-valid'],
    warns: ['loop.requests-accepted'],
    passes: ['loop.history-kept', 'results.one-user-turn', 'results.ids-match', 'loop.tools-every-request'],
  },
  {
    agent: 'tool-uses-only-turn',
    flaw: "appends only the reply's tool_use blocks as the assistant turn, dropping its text block",
    fails: [],
    warns: ['loop.assistant-turn-verbatim'],
    passes: ['loop.assistant-turn', 'loop.history-kept', 'loop.requests-valid', 'results.ids-match'],
  },
  {
    agent: 'new-turns-only',
    flaw: 'sends only the new turns, as if the service held the conversation',
    fails: ['loop.history-kept', 'loop.assistant-turn', 'loop.requests-valid'],
    warns: ['loop.requests-accepted'],
    // The mock refuses the follow-up, so the loop ends there: what comes later is not judged.
    skips: ['loop.ends-without-tool-use', 'cap.honoured', 'breaker.halts-at-third', 'breaker.exit-status'],
    passes: ['results.ids-match', 'results.one-user-turn', 'loop.tools-every-request', 'breaker.one-reply'],
  },
  {
    agent: 'new-turns-exit-zero',
    flaw: 'sends only the new turns, and exits 0 when the follow-up is refused',
    fails: ['loop.history-kept', 'loop.requests-valid'],
    // Exit 0 after the refusal is no end of the loop, nor a cap: nothing of those rules was met.
    skips: ['loop.ends-without-tool-use', 'cap.default-recommended', 'loop.restart'],
    passes: ['results.ids-match'],
  },
  {
    agent: 'throw-on-failure',
    flaw: 'dies (exit 1, a stack trace) at the first command that fails',
    fails: ['breaker.halts-at-third'],
    // It never halted for a breaker: there was no line to ask for. Nor sent a failing command's result.
    skips: ['breaker.operator-line', 'breaker.operator-line-asks', 'results.is-error'],
    passes: ['results.ids-match'],
  },
  {
    agent: 'no-mkdir',
    flaw: 'never creates WIRECHECK_WORKDIR',
    fails: ['runner.workdir'],
    // Its commands in that case all fail and trip the breaker: the other rules judge the other cases.
    passes: ['loop.ends-without-tool-use', 'results.is-error', 'results.output'],
  },
  {
    agent: 'newer-bash-version',
    flaw: 'declares the bash tool with a dated type the spec does not list (bash_20991231), which the real API refuses',
    fails: [],
    warns: ['loop.requests-accepted'],
    // The spec allows the body, so the mock serves it and the rest of the loop is judged.
    passes: [
      'loop.bash-built-in',
      'loop.tools-every-request',
      'loop.requests-valid',
      'loop.first-request',
      'loop.restart',
      'runner.workdir',
      'loop.ends-without-tool-use',
      'breaker.one-reply',
      'results.ids-match',
    ],
  },
  {
    agent: 'no-api-key',
    flaw: 'sends no API key, so the mock refuses every request unread',
    fails: ['auth.key-sent'],
    // Nothing else was read or reached: not exercised, not failed.
    skips: [
      'loop.first-request',
      'loop.requests-valid',
      'loop.requests-accepted',
      'breaker.exit-status',
      'cap.honoured',
      'cap.default-recommended',
    ],
    passes: [],
  },
  {
    agent: 'wrong-path',
    flaw: 'posts to {base}/messages, as if the base URL ended in /v1',
    fails: ['loop.endpoint'],
    // The mock serves no such path, so nothing of the loop was read or reached.
    skips: [
      'loop.first-request',
      'loop.requests-valid',
      'loop.ends-without-tool-use',
      'cap.honoured',
      'cap.default',
      'breaker.halts-at-third',
      'breaker.exit-status',
      'breaker.reset-by-success',
    ],
    passes: ['auth.key-sent'],
  },
  {
    agent: 'key-once',
    flaw: 'sends the key with the first request only',
    fails: ['auth.key-sent'],
    // Every follow-up is refused unread: what it answered is not judged (it used to crash loop.restart).
    skips: ['loop.restart', 'loop.history-kept', 'results.ids-match', 'cap.honoured'],
    passes: ['loop.first-request', 'loop.endpoint', 'breaker.one-reply'],
  },
  {
    agent: 'any-tool',
    flaw: 'runs every tool_use as a bash command, whatever tool it names',
    fails: ['loop.other-tool-ends'],
    passes: ['loop.ends-without-tool-use', 'results.ids-match', 'loop.requests-valid'],
  },
  {
    agent: 'prompt-from-argv',
    flaw: 'takes its task from the command line (a default task) and never sends the prompt given on stdin',
    fails: ['loop.first-request'],
    passes: [
      'loop.tools-every-request',
      'loop.requests-valid',
      'loop.history-kept',
      'loop.ends-without-tool-use',
      'loop.restart',
    ],
  },
  {
    agent: 'restart-unanswered',
    flaw: 'takes a bash call with restart: true as a host action, leaves it unanswered and ends the loop',
    // The restart case is one of the cases whose loop must go on to the model's final text.
    fails: ['loop.restart', 'loop.ends-without-tool-use'],
    passes: [
      'loop.first-request',
      'loop.requests-valid',
      'loop.history-kept',
      'results.ids-match',
      'results.output',
    ],
  },
  {
    agent: 'continue-on-max-tokens',
    flaw: 'answers a reply cut at max_tokens with "Please continue." instead of ending the loop',
    fails: ['loop.ends-whatever-stop-reason'],
    passes: ['loop.ends-without-tool-use', 'loop.requests-valid', 'loop.history-kept'],
  },
  {
    agent: 'fail-on-unlisted-stop',
    flaw: 'exits 1 on a reply whose stop_reason the spec does not list (refusal)',
    fails: ['loop.ends-whatever-stop-reason'],
    passes: ['loop.ends-without-tool-use', 'loop.requests-valid', 'results.ids-match'],
  },
  {
    agent: 'no-retry',
    flaw: 'gives up at once when a request is answered 529 overloaded_error',
    warns: ['loop.retries-overloaded'],
    // Its loop ended at the 529, before the request answered 429.
    skips: ['loop.retries-rate-limited'],
    passes: ['loop.first-request', 'loop.ends-without-tool-use', 'loop.requests-valid'],
  },
  {
    agent: 'retry-overloaded-only',
    flaw: 'sends a request answered 529 overloaded_error again, but gives up at once on 429 rate_limit_error',
    warns: ['loop.retries-rate-limited'],
    passes: ['loop.retries-overloaded', 'loop.first-request', 'loop.requests-valid'],
  },
  {
    agent: 'retry-once',
    flaw: 'retries 429 and 529 once only (not a flaw: each error is the first try of its request)',
    fails: [],
    passes: [
      'loop.retries-overloaded',
      'loop.retries-rate-limited',
      'loop.history-kept',
      'results.ids-match',
    ],
  },
  {
    agent: 'zero-max-tokens',
    flaw: 'sends max_tokens 0, which the spec allows and the real API refuses',
    fails: [],
    warns: ['loop.requests-accepted'],
    passes: [
      'loop.requests-valid',
      'loop.first-request',
      'loop.tools-every-request',
      'loop.ends-without-tool-use',
      'cap.honoured',
      'breaker.exit-status',
    ],
  },
  {
    agent: 'equivalent-forms',
    flaw: 'writes every other request in equivalent forms (string turns, is_error false left out, text-block results, restart false written out)',
    fails: [],
    passes: [
      'loop.history-kept',
      'loop.requests-valid',
      'loop.assistant-turn',
      'results.ids-match',
      'results.is-error',
      'results.output',
      'loop.first-request',
      // Its retry after a 529 is written in the other form: still the same conversation.
      'loop.retries-overloaded',
      'loop.retries-rate-limited',
    ],
  },
  {
    agent: 'custom-bash',
    flaw: "declares bash as a custom tool with an input schema (as the SDK's betaBashTool does), not as the built-in shell tool",
    fails: [],
    warns: ['loop.bash-built-in'],
    passes: [
      'loop.tools-every-request',
      'loop.requests-valid',
      'loop.requests-accepted',
      'loop.history-kept',
      'loop.ends-without-tool-use',
    ],
  },
  {
    agent: 'more-tools',
    flaw: 'offers web_search_20250305, text_editor_20250429 and a custom tool beside bash (not a flaw: the real API accepts them)',
    fails: [],
    passes: [
      'loop.bash-built-in',
      'loop.requests-accepted',
      'loop.tools-every-request',
      'loop.requests-valid',
      'loop.first-request',
      'loop.ends-without-tool-use',
      'results.output',
    ],
  },
  {
    agent: 'other-operations',
    flaw: 'lists the models at start and counts the tokens of every request first (not a flaw: operations of the real API the spec does not show; the mock answers 404 and the agent goes on)',
    fails: [],
    passes: [
      'loop.restart',
      'loop.endpoint',
      'loop.first-request',
      'auth.key-sent',
      'results.output',
      'cap.honoured',
      'cap.exact',
      'breaker.halts-at-third',
    ],
  },
  {
    agent: 'default-cap-60',
    flaw: 'has a default cap of 60 turns (not a flaw: the spec only recommends 10 to 15)',
    warns: ['cap.default-recommended'],
    passes: ['cap.default', 'cap.honoured'],
  },
  {
    agent: 'breaker-wording',
    flaw: 'asks an administrator to review the session when the breaker trips (not a flaw: the words are not fixed)',
    fails: [],
    passes: ['breaker.operator-line', 'breaker.operator-line-asks', 'breaker.exit-status'],
  },
  {
    agent: 'verbose-around-breaker',
    flaw: 'writes 16 KiB of trace before its operator line and 16 after (not a flaw: the line is in the middle of stderr, which a run does not keep)',
    fails: [],
    passes: ['breaker.operator-line', 'breaker.operator-line-asks', 'breaker.exit-status'],
  },
  {
    agent: 'breaker-awaiting-instructions',
    flaw: 'says "Awaiting instructions." when the breaker trips (not a flaw: it asks for a person to act)',
    fails: [],
    passes: ['breaker.operator-line', 'breaker.operator-line-asks', 'breaker.exit-status'],
  },
  {
    agent: 'breaker-stack-trace',
    flaw: 'prints a bare stack trace when the breaker trips, and exits 3',
    // A line of its own at the halt, so the must holds; its words ask nobody, which only warns.
    warns: ['breaker.operator-line-asks'],
    passes: ['breaker.operator-line', 'breaker.exit-status', 'breaker.halts-at-third'],
  },
  {
    agent: 'one-shot',
    flaw: 'stops after the first reply though it asks for a command, and exits 0',
    fails: ['loop.ends-without-tool-use', 'cap.honoured'],
    skips: ['cap.default', 'cap.default-recommended'],
    passes: ['loop.first-request', 'loop.endpoint'],
  },
  {
    agent: 'no-cap',
    flaw: 'has no turn cap',
    fails: ['cap.honoured', 'cap.default'],
    passes: ['loop.ends-without-tool-use', 'breaker.halts-at-third'],
  },
  {
    agent: 'ignore-max-turns-stop-at-5',
    flaw: 'ignores WIRECHECK_MAX_TURNS and stops after 5 requests whatever it says',
    // 5 requests are within the cap's readings, but it sends as many without the variable.
    skips: ['cap.honoured'],
    passes: ['cap.default', 'cap.default-recommended'],
  },
  {
    agent: 'cap-plus-one',
    flaw: 'sends one request more than the cap (a reading the spec allows)',
    fails: [],
    warns: ['cap.exact'],
    passes: ['cap.honoured', 'cap.default', 'cap.default-recommended'],
  },
  {
    agent: 'breaker-at-2',
    flaw: 'trips the breaker at the second consecutive failure',
    fails: ['breaker.halts-at-third', 'breaker.across-replies', 'breaker.reset-by-success'],
    passes: ['breaker.one-reply', 'breaker.exit-status', 'breaker.operator-line'],
  },
  {
    agent: 'breaker-no-reset',
    flaw: 'counts every failing command towards the breaker, never starting again after a success',
    fails: ['breaker.reset-by-success'],
    passes: ['breaker.halts-at-third', 'breaker.one-reply', 'breaker.across-replies', 'breaker.exit-status'],
  },
  {
    agent: 'breaker-never',
    flaw: 'has no circuit breaker',
    fails: ['breaker.halts-at-third', 'breaker.exit-status', 'breaker.one-reply', 'breaker.across-replies'],
    skips: ['breaker.operator-line', 'breaker.operator-line-asks'],
    passes: ['breaker.reset-by-success'],
  },
  {
    agent: 'exit-zero-on-breaker',
    flaw: 'exits 0 when the breaker trips',
    fails: ['breaker.exit-status', 'breaker.one-reply', 'breaker.across-replies'],
    passes: ['breaker.halts-at-third', 'breaker.operator-line', 'breaker.reset-by-success'],
  },
  {
    agent: 'no-operator-line',
    flaw: 'asks nobody for intervention when the breaker trips',
    fails: ['breaker.operator-line'],
    // No line of its own, so no words to read.
    skips: ['breaker.operator-line-asks'],
    passes: ['breaker.halts-at-third', 'breaker.exit-status', 'breaker.one-reply'],
  },
  {
    agent: 'banner-no-operator-line',
    flaw: 'starts every run with a banner on stderr ("[agent <pid>] running commands as user wirecheck in <workdir>; see --help for options"), and asks nobody for intervention when the breaker trips',
    // The banner names a user and help, but the agent prints it where the breaker does not trip too.
    fails: ['breaker.operator-line'],
    skips: ['breaker.operator-line-asks'],
    passes: ['breaker.halts-at-third', 'breaker.exit-status'],
  },
  {
    agent: 'banner',
    flaw: 'starts every run with that banner, and asks for intervention when the breaker trips (not a flaw)',
    fails: [],
    passes: ['breaker.operator-line', 'breaker.operator-line-asks', 'breaker.exit-status'],
  },
  {
    agent: 'trace-conversation-no-operator-line',
    flaw: 'logs the conversation on stderr ("[assistant] ...", "sending user turn ...") and asks nobody for intervention when the breaker trips',
    // Its log of the failing replies is printed only where the breaker trips, but it only echoes
    // the conversation: no line of the halt's own, so the must fails (and the should has no words to read).
    fails: ['breaker.operator-line'],
    skips: ['breaker.operator-line-asks'],
    passes: ['breaker.halts-at-third', 'breaker.exit-status'],
  },
  {
    agent: 'count-failures-first',
    flaw: "counts a reply's failing commands for the breaker before its succeeding ones, as when they run at once (not a flaw: the spec fixes no order within a reply)",
    fails: [],
    passes: [
      'breaker.halts-at-third',
      'breaker.one-reply',
      'breaker.across-replies',
      'breaker.reset-by-success',
      'breaker.exit-status',
    ],
  },
  {
    agent: 'count-successes-first',
    flaw: "counts a reply's succeeding commands for the breaker before its failing ones (not a flaw either)",
    fails: [],
    passes: [
      'breaker.halts-at-third',
      'breaker.one-reply',
      'breaker.across-replies',
      'breaker.reset-by-success',
      'breaker.exit-status',
    ],
  },
  {
    agent: 'environment-after-prompt',
    flaw: "sends its environment as a user turn of its own right after the prompt's (not a flaw: the real API combines consecutive user turns)",
    fails: [],
    passes: [
      'loop.first-request',
      'loop.history-kept',
      'loop.assistant-turn',
      'loop.requests-valid',
      'loop.requests-accepted',
      'results.one-user-turn',
    ],
  },
  {
    agent: 'reminder-after-results',
    flaw: 'appends a reminder as a user turn of its own after each results turn (not a flaw: the real API combines consecutive user turns)',
    fails: [],
    passes: [
      'results.one-user-turn',
      'results.ids-match',
      'results.is-error',
      'results.output',
      'loop.history-kept',
      'loop.assistant-turn',
      'loop.assistant-turn-verbatim',
      'loop.requests-valid',
      'loop.requests-accepted',
    ],
  },
  {
    agent: 'split-assistant-turn',
    flaw: 'echoes each reply as two assistant turns, its text and then its tool calls (not a flaw: the real API combines consecutive assistant turns)',
    fails: [],
    passes: [
      'loop.assistant-turn',
      'loop.assistant-turn-verbatim',
      'loop.history-kept',
      'loop.requests-valid',
      'loop.requests-accepted',
      'results.one-user-turn',
      'results.ids-match',
    ],
  },
  {
    agent: 'no-version',
    flaw: 'sends no version header',
    fails: ['auth.version-sent'],
    // No value to judge.
    skips: ['auth.version-value'],
    passes: ['auth.key-sent', 'auth.content-type', 'loop.first-request', 'loop.ends-without-tool-use'],
  },
  {
    agent: 'other-version',
    flaw: 'sends anthropic-version 2026-10-21, as @anthropic-ai/sdk 1.x does (the real API accepts it)',
    warns: ['auth.version-value'],
    passes: ['auth.version-sent', 'auth.content-type', 'auth.key-sent'],
  },
  {
    agent: 'no-content-type',
    flaw: 'writes no content-type, so fetch sends its default for a string body (text/plain;charset=UTF-8)',
    fails: ['auth.content-type'],
    passes: ['auth.version-sent', 'auth.version-value', 'auth.key-sent', 'loop.requests-valid'],
  },
  {
    agent: 'reverse-results',
    flaw: "answers a reply's several tool calls in reverse order",
    fails: [],
    warns: ['results.order'],
    passes: ['results.ids-match', 'results.one-user-turn', 'results.output', 'loop.requests-valid'],
  },
  {
    agent: 'no-is-error',
    flaw: "leaves is_error out of a failing command's result",
    fails: ['results.is-error'],
    passes: ['results.output', 'results.ids-match', 'breaker.halts-at-third'],
  },
  {
    agent: 'no-output',
    flaw: 'answers each command with its outcome, not its output',
    fails: ['results.output'],
    passes: ['results.is-error', 'results.ids-match', 'runner.workdir'],
  },
  {
    agent: 'quote-command-only',
    flaw: 'answers each command with the command itself ("$ echo wc-one-call") and its exit status, not its output',
    // The command holds the text it prints: quoting it shows no output.
    fails: ['results.output'],
    passes: ['results.is-error', 'results.ids-match', 'runner.workdir'],
  },
];

describe('the suite fails agents that break a rule', () => {
  for (const c of CASES) {
    test(`an agent that ${c.flaw} ${verdictPhrase(c)}`, async () => {
      const expected = expectedStatuses(c, SUITE);
      const result = await runAgainst(nodeCommand(`./broken/${c.agent}.mjs`), {
        only: Object.keys(expected),
      });
      expect(statusById(result)).toEqual(expected);
    }, 120_000);
  }
});

test('an agent that never stops is stopped after MAX_CASE_REQUESTS requests, and its case is judged from its first request', async () => {
  const result = await runAgainst(nodeCommand('./broken/never-stops.mjs'), {
    only: [`${P}loop.ends-without-tool-use`, `${P}loop.first-request`],
  });
  expect(statusById(result)).toEqual({
    [`${P}loop.ends-without-tool-use`]: 'fail',
    [`${P}loop.first-request`]: 'pass',
  });
  const ends = result.checks.find((c) => c.id === `${P}loop.ends-without-tool-use`)!;
  expect(ends.message).toContain(`wirecheck stopped it after ${MAX_CASE_REQUESTS} requests in this case`);
}, 120_000);

test('a failure names what was expected and what the agent did', async () => {
  const result = await runAgainst(nodeCommand('./broken/breaker-at-2.mjs'), {
    only: [`${P}breaker.halts-at-third`],
  });
  const check = result.checks[0]!;
  expect(check.message).toContain('halted before the third consecutive failure');
  expect(check.expected).toContain('3 requests');
  expect(check.actual).toBe('2 requests');
  expect(check.reproduce).toContain('--only agent.breaker.halts-at-third');
}, 60_000);

test('a banner the agent prints in every run is named as no request for intervention', async () => {
  const result = await runAgainst(nodeCommand('./broken/banner-no-operator-line.mjs'), {
    only: [`${P}breaker.operator-line`],
  });
  const check = result.checks[0]!;
  expect(check.status).toBe('fail');
  expect(check.message).toContain('asked nobody for intervention');
  expect(check.actual).toMatch(
    /^only line\(s\) it printed in case one-call too, where the breaker did not trip: /,
  );
  expect(check.actual).toContain('running commands as user wirecheck');
}, 60_000);

test('an is_error left out is shown as the agent wrote it, not with the default written in', async () => {
  const result = await runAgainst(nodeCommand('./broken/no-is-error.mjs'), {
    only: [`${P}results.is-error`],
  });
  const check = result.checks[0]!;
  expect(check.status).toBe('fail');
  expect(check.message).toMatch(
    /the result of "(false|\(exit 2\)|sh -c 'exit 1')" \(exit non-zero\) leaves out is_error \(false\)/,
  );
  expect(check.expected).toBe('is_error: true');
  expect(check.actual).toContain('"tool_use_id"');
  expect(check.actual).not.toContain('is_error');
}, 60_000);

test('a follow-up without the assistant turn is named for what it holds instead', async () => {
  const result = await runAgainst(nodeCommand('./broken/drop-assistant-turn.mjs'), {
    only: [`${P}loop.history-kept`, `${P}loop.assistant-turn`],
  });
  const check = result.checks.find((c) => c.id === `${P}loop.assistant-turn`)!;
  expect(check.status).toBe('fail');
  expect(check.message).toMatch(/turn \d+ must be the assistant turn of the reply, but its role is "user"/);
}, 60_000);

test('a body only the real API refuses is served, and requests-accepted says the real API would refuse it', async () => {
  const result = await runAgainst(nodeCommand('./broken/newer-bash-version.mjs'), {
    only: [`${P}loop.requests-accepted`],
  });
  const check = result.checks[0]!;
  expect(check.status).toBe('warn');
  expect(check.message).toMatch(
    /the real API would refuse request 1 \(the mock served it, as the spec allows it\): tools\.0\.type/,
  );
  expect(check.actual).toContain('status 200; the real API would refuse it');
}, 60_000);
