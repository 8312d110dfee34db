import { expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import type { ToolJournalEntry } from '../../../src/mocks/tools/index.js';
import { toolScenario } from '../../../src/mocks/tools/index.js';
import { type CaseResult, reached, wholeJournal } from '../../../src/suites/tool-client/context.js';
import { classifyToolClientRun } from '../../../src/suites/tool-client/output.js';

// The backstop under the flood guard and the mocks' batch cap: a mock's journal that forgot its
// oldest entries starts mid-session, where initialize looks missing. No check may judge it, and
// the client that filled it did reach the mock.

const pong = (seq: number): ToolJournalEntry => ({
  seq,
  at: 0,
  atMs: seq,
  session: 's',
  transport: 'sse',
  direction: 'sent',
  kind: 'message',
  text: `{"jsonrpc":"2.0","id":${seq},"result":{}}`,
  value: { jsonrpc: '2.0', id: seq, result: {} },
});

function caseWith(journalDropped: number | undefined): CaseResult {
  const run = {
    exitCode: null,
    signal: 'SIGKILL' as const,
    stdout: '',
    stderr: '',
    timedOut: false,
    durationMs: 5,
  };
  return {
    transport: 'sse',
    scenario: toolScenario({ seed: 1 }),
    input: { tool: 'echo' },
    run,
    outcome: classifyToolClientRun(run),
    journal: [pong(20_000), pong(20_001)],
    stoppedAfterMessages: 12_002,
    ...(journalDropped === undefined ? {} : { journalDropped }),
  };
}

test('a case whose journal forgot its first entries is not exercised, saying how many and why', () => {
  let thrown: unknown;
  try {
    wholeJournal(caseWith(9_998));
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(NotExercised);
  expect((thrown as Error).message).toMatch(/journal forgot the case's first 9998 entries/);
  expect((thrown as Error).message).toMatch(/stopped the client after 12002 messages/);
});

test('a case whose journal is whole is judged as it is', () => {
  const whole = caseWith(undefined);
  expect(wholeJournal(whole)).toBe(whole);
});

test('a client whose own messages were all forgotten still reached the mock', () => {
  expect(reached(caseWith(9_998))).toBe(true);
  expect(reached(caseWith(undefined))).toBe(false);
});
