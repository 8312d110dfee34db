import { expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { describeDifferences } from '../../../src/protocol/compare.js';
import { specDifferences, textOfResult, turnsOf } from '../../../src/suites/agent/conversation.js';

function entry(messages: unknown[]): JournalEntry {
  return { body: { messages } } as unknown as JournalEntry;
}

const use = { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'echo hi' } };

test('equivalent forms of a turn reduce to the same blocks: a string turn, is_error left out, text-block content', () => {
  const long = turnsOf(
    entry([
      { role: 'user', content: [{ type: 'text', text: 'do it' }] },
      { role: 'assistant', content: [use] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi\n', is_error: false }],
      },
    ]),
  );
  const short = turnsOf(
    entry([
      { role: 'user', content: 'do it' },
      { role: 'assistant', content: [{ ...use, cache_control: { type: 'ephemeral' } }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hi\n' }] }],
      },
    ]),
  );
  expect(specDifferences(long, short)).toEqual([]);
  const result = short![2]!.blocks[0]!;
  expect(result).toMatchObject({ type: 'tool_result', is_error: false });
  expect(textOfResult(result as Parameters<typeof textOfResult>[0])).toBe('hi\n');
});

test('every difference is listed with its path and both values, not only the first', () => {
  const before = turnsOf(
    entry([
      { role: 'user', content: 'do it' },
      { role: 'assistant', content: [use] },
    ]),
  );
  const after = turnsOf(
    entry([
      { role: 'user', content: 'do it now' },
      { role: 'assistant', content: [{ ...use, input: { command: 'echo hi', restart: true } }] },
    ]),
  );
  const found = specDifferences(before, after);
  expect(describeDifferences(found)).toBe(
    '$[0].blocks[0].text: expected "do it", got "do it now"; $[1].blocks[0].input.restart: not expected (got true)',
  );
});
