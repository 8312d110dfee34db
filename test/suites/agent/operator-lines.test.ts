import { describe, expect, test } from 'vitest';
import { asksForOperator } from '../../../src/suites/agent/expect.js';
import {
  echoesConversation,
  lineShape,
  linesBeyond,
  watchStderrLines,
} from '../../../src/suites/agent/operator-lines.js';

function watched(caseName: string, lines: string[]) {
  const watch = watchStderrLines(caseName);
  for (const line of lines) expect(watch.see(line)).toBe(false);
  return watch.found();
}

describe('the stderr lines of a run, as two runs of an agent print them', () => {
  test('a banner is the same line whatever its pid, working directory and case name', () => {
    const a = lineShape(
      '[agent 4711] running commands as user wirecheck in /tmp/x-3f9a/one-call',
      'one-call',
    );
    const b = lineShape(
      '[agent 80211] Running commands as user wirecheck in /tmp/x-b07c/consecutive-failures',
      'consecutive-failures',
    );
    expect(a).toBe(b);
    expect(lineShape('task: wirecheck case one-call: ask the user', 'one-call')).toBe(
      lineShape('task: wirecheck case failures-in-one-reply: ask the user', 'failures-in-one-reply'),
    );
  });

  test('the words of a line still tell it from another', () => {
    expect(lineShape('agent: done, see --help', 'c')).not.toBe(
      lineShape('agent: halted, operator needed', 'c'),
    );
  });

  test('every line is kept, one per shape, saying whether it asks someone to act; blank lines are not lines', () => {
    const found = watched('c', [
      'agent: turn 1: request sent',
      'agent: turn 2: request sent',
      '',
      '   ',
      '[agent 1] running as user wirecheck',
      '[agent 2] running as user wirecheck',
      'Human intervention needed.',
    ]);
    expect(found.lines.map((l) => [l.line, l.asks])).toEqual([
      ['agent: turn 1: request sent', false],
      ['[agent 1] running as user wirecheck', true],
      ['Human intervention needed.', true],
    ]);
    expect(found.more).toBe(false);
  });

  test('a run writing a new line at every step keeps a bounded number, and says more came', () => {
    const found = watched(
      'c',
      Array.from({ length: 1000 }, (_, n) => `step ${'x'.repeat(n % 50)}${'y'.repeat(n)}: done`),
    );
    expect(found.lines.length).toBeLessThan(1000);
    expect(found.more).toBe(true);
    expect(found.moreAsking).toBe(false);
    expect(Math.max(...found.lines.map((l) => l.line.length))).toBeLessThanOrEqual(400);
  });

  test("a log of hundreds of distinct lines does not crowd out the breaker's request", () => {
    const log = Array.from({ length: 1000 }, (_, n) => `step ${'x'.repeat(n % 50)}${'y'.repeat(n)}: done`);
    const found = watched('c', [...log, 'circuit breaker tripped: operator intervention required']);
    expect(found.more).toBe(true);
    expect(found.lines.filter((l) => l.asks).map((l) => l.line)).toEqual([
      'circuit breaker tripped: operator intervention required',
    ]);
  });

  test('the lines beyond a control are those it did not print, whatever their words', () => {
    const usual = watched('one-call', ['[agent 7] running as user wirecheck in /w/one-call']);
    const tripped = watched('three', [
      '[agent 9] running as user wirecheck in /w/three',
      'circuit breaker: operator intervention required',
      'Error: 3 consecutive commands failed',
      '    at main (file:///w/agent.mjs:12:5)',
    ]);
    expect(linesBeyond(tripped, usual).map((l) => [l.line, l.asks])).toEqual([
      ['circuit breaker: operator intervention required', true],
      ['Error: 3 consecutive commands failed', false],
      ['    at main (file:///w/agent.mjs:12:5)', false],
    ]);
    const silent = watched('three', ['[agent 9] running as user wirecheck in /w/three']);
    expect(linesBeyond(silent, usual)).toEqual([]);
  });
});

describe('the words of a request for intervention (agent.breaker.operator-line-asks)', () => {
  // Lines real agents print when they halt, which the narrower reading before this list missed.
  test.each([
    ['agent halted: 3 consecutive commands failed; please take a look before re-trying.'],
    ['Circuit breaker tripped after 3 consecutive failures. Awaiting instructions.'],
    ['3 consecutive command failures, stopping. Requires action from a developer.'],
    ['circuit breaker tripped after 3 consecutive failures; awaiting user response.'],
    ['circuit breaker tripped after 3 consecutive failures; waiting for a user reply.'],
    ['circuit breaker tripped after 3 consecutive failures; hand-off to the user: please advise.'],
    ['3 commands failed in a row. Please verify the environment and try again.'],
    ['halted: action required by an engineer'],
  ])('asks: %s', (line) => expect(asksForOperator(line)).toBe(true));

  test.each([
    ['Error: 3 consecutive commands failed'],
    ['    at main (file:///w/agent.mjs:12:5)'],
    ['halted.'],
    ['sending user turn with 3 tool_result blocks'],
    ['[assistant] I will run 3 commands.'],
    ['fix: retrying the request'],
  ])('asks nobody: %s', (line) => expect(asksForOperator(line)).toBe(false));
});

describe('lines that only echo the conversation (agent.breaker.operator-line)', () => {
  const served = ['false', '(exit 2)', "sh -c 'exit 1'"];
  const lines = (texts: string[]) => watched('three-failures', texts).lines;

  test('a log of a turn and a served command printed as such are echoes', () => {
    const echoes = lines([
      '[assistant] [{"type":"tool_use","input":{"command":"false"}}]',
      'sending user turn with 1 tool_result blocks',
      '$ (exit 2)',
      "sh -c 'exit 1'",
    ]);
    expect(echoes.map((l) => echoesConversation(l, served))).toEqual([true, true, true, true]);
  });

  test("the halt's own line is none, even when it names the last command, and neither is a request quoting a turn", () => {
    const own = lines([
      'agent halted: 3 consecutive commands failed (last: false)',
      'Traceback (most recent call last):',
      '[assistant] 3 failures in a row: please take a look',
    ]);
    expect(own.map((l) => echoesConversation(l, served))).toEqual([false, false, false]);
  });
});
