import { expect, test } from 'vitest';
import { specRequestError } from '../../../src/suites/agent/spec-request.js';

const USE = { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'echo hi' } };

/** A follow-up request: the prompt, the assistant turn with `use`, and a user turn with `result`. */
function followUp(use: object, result: object): unknown {
  return {
    model: 'm',
    max_tokens: 64,
    tools: [{ type: 'bash_20250124', name: 'bash' }],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [use] },
      { role: 'user', content: [result] },
    ],
  };
}

test('a follow-up with string ids that match breaks no rule', () => {
  expect(
    specRequestError(followUp(USE, { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi' })),
  ).toBe(undefined);
});

test('a tool_result whose tool_use_id is not a string is a violation naming where, not a TypeError', () => {
  // An object with a `toString` that is no function cannot be written into a message at all.
  const body = followUp(USE, { type: 'tool_result', tool_use_id: { toString: 1 }, content: 'hi' });
  expect(specRequestError(body)).toBe(
    'messages.2.content.0.tool_use_id: expected a string (the id of the tool_use answered), got {"toString":1}',
  );
  expect(specRequestError(followUp(USE, { type: 'tool_result', content: 'hi' }))).toMatch(
    /^messages\.2\.content\.0\.tool_use_id: expected a string .*, got undefined$/,
  );
});

test('a tool_use whose id is not a string is a violation naming where', () => {
  const body = followUp({ ...USE, id: { toString: 1 } }, { type: 'tool_result', tool_use_id: 'toolu_1' });
  expect(specRequestError(body)).toBe(
    `messages.1.content.0.id: expected a string (the tool_use's id), got {"toString":1}`,
  );
  expect(specRequestError(followUp({ ...USE, id: 7 }, { type: 'tool_result', tool_use_id: '7' }))).toMatch(
    /^messages\.1\.content\.0\.id: expected a string/,
  );
});
