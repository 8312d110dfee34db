import { expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { CASES, type CaseKey } from '../../../src/suites/agent/cases.js';
import { resultChecks } from '../../../src/suites/agent/checks/results.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import { messageOfStep } from '../../../src/suites/agent/script.js';
import { fakeCaseResult } from './fake-result.js';

const spec = CASES.severalCalls;
const reply = messageOfStep(spec.name, 0, { calls: ['echo a', 'echo b'] }, 'm');
const [, first, second] = reply.content as { id: string }[];
const prompt = { role: 'user', content: spec.prompt };
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok', is_error: false });

function sent(messages: unknown[]): JournalEntry {
  return {
    seq: 0,
    status: 200,
    method: 'POST',
    url: '/v1/messages',
    body: { messages },
  } as unknown as JournalEntry;
}

/** A context whose several-calls case sent the prompt, then `followUp` after the reply with two tool calls. */
function ctxOf(followUp: unknown[]): AgentCtx {
  const several: AgentCaseResult = {
    ...fakeCaseResult(spec, [sent([prompt]), sent(followUp)], 0),
    served: [reply],
  };
  const of = (key: CaseKey) => (key === 'severalCalls' ? several : fakeCaseResult(CASES[key], [], 0));
  return {
    result: async (key: CaseKey) => of(key),
    results: async (keys: readonly CaseKey[]) => keys.map(of),
  } as unknown as AgentCtx;
}

const env = { signal: new AbortController().signal } as never;
const oneUserTurn = resultChecks.find((c) => c.id === 'agent.results.one-user-turn')!;
const assistant = { role: 'assistant', content: reply.content };

test('results.one-user-turn: a reminder sent as a user turn after the results is part of their turn', async () => {
  const followUp = [
    prompt,
    assistant,
    { role: 'user', content: [result(first!.id), result(second!.id)] },
    { role: 'user', content: '<reminder>Keep going.</reminder>' },
  ];
  await expect(oneUserTurn.run(ctxOf(followUp), env)).resolves.toBeUndefined();
});

test('results.one-user-turn: results spread over consecutive user turns still fail, naming the spread', async () => {
  const followUp = [
    prompt,
    assistant,
    { role: 'user', content: [result(first!.id)] },
    { role: 'user', content: [result(second!.id)] },
  ];
  await expect(oneUserTurn.run(ctxOf(followUp), env)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      message: expect.stringContaining('not spread over several'),
      actual: 'tool_result blocks in turns 3 (user), 4 (user) of 4',
    }),
  );
});

test('results.one-user-turn: a results turn followed by a turn of another role does not end the request', async () => {
  const followUp = [
    prompt,
    assistant,
    { role: 'user', content: [result(first!.id), result(second!.id)] },
    { role: 'assistant', content: 'Noted.' },
  ];
  await expect(oneUserTurn.run(ctxOf(followUp), env)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      actual: 'tool_result blocks in turns 3 (user) of 4, followed by turn(s) of another role: 4 (assistant)',
    }),
  );
});
