import { describe, expect, test } from 'vitest';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { describeDifferences } from '../../../src/protocol/compare.js';
import type { Message } from '../../../src/protocol/messages/index.js';
import {
  addedTurns,
  combineTurns,
  type FollowUp,
  newToolResults,
  newTurnsStart,
  onlyNewTurnsText,
  sendsOnlyNewTurns,
  specDifferences,
  textOfResult,
  turnsOf,
} from '../../../src/suites/agent/conversation.js';

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

describe('the turns a follow-up adds', () => {
  const prompt = { role: 'user', content: 'do it' };
  const reply = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [use],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  } as Message;
  const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi' };
  const followUp = (messages: unknown[], body: Record<string, unknown> = {}): FollowUp => ({
    label: 'case x, request 2',
    earlier: turnsOf(entry([prompt]))!,
    turns: turnsOf(entry(messages))!,
    reply,
    entry: { body: { messages, ...body } } as unknown as JournalEntry,
  });

  test('after the earlier turns when the request starts with them', () => {
    const f = followUp([prompt, { role: 'assistant', content: [use] }, { role: 'user', content: [result] }]);
    expect(sendsOnlyNewTurns(f)).toBe(false);
    expect(newTurnsStart(f)).toBe(1);
    expect(newToolResults(f).map((r) => r.turn)).toEqual([2]);
  });

  test('the results of a request that sends only its new turns are still found, and the thread is named', () => {
    const f = followUp([{ role: 'user', content: [result] }], {
      thread: { type: 'continue', previous_message_id: 'msg_1' },
    });
    expect(sendsOnlyNewTurns(f)).toBe(true);
    expect(newToolResults(f).map((r) => r.block.tool_use_id)).toEqual(['toolu_1']);
    expect(onlyNewTurnsText(f)).toContain('it sends only its new turns, continuing a conversation');
    expect(onlyNewTurnsText(f)).toContain('"previous_message_id":"msg_1"');
  });

  test('a request that changes an earlier turn but is longer keeps its new turns after the earlier ones', () => {
    const f = followUp([
      { role: 'user', content: 'do it now' },
      { role: 'assistant', content: [use] },
      { role: 'user', content: [result] },
    ]);
    expect(sendsOnlyNewTurns(f)).toBe(false);
    expect(newTurnsStart(f)).toBe(1);
  });
});

describe('the turns as the real API reads them: consecutive turns of one role combined', () => {
  const reply = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [{ type: 'text', text: 'I will run one command.' }, use],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  } as Message;
  const prompt = { role: 'user', content: 'do it' };
  const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi' };
  const followUp = (earlier: unknown[], messages: unknown[]): FollowUp => ({
    label: 'case x, request 2',
    earlier: turnsOf(entry(earlier))!,
    turns: turnsOf(entry(messages))!,
    reply,
    entry: entry(messages),
  });

  test('blocks are joined in order, a string turn as its text block, with the turns as sent each came from', () => {
    const combined = combineTurns(
      turnsOf(entry([prompt, { role: 'user', content: [{ type: 'text', text: '<env>cwd: /w</env>' }] }]))!,
    );
    expect(combined).toEqual([
      {
        role: 'user',
        blocks: [
          { type: 'text', text: 'do it' },
          { type: 'text', text: '<env>cwd: /w</env>' },
        ],
        sentAt: [0, 1],
      },
    ]);
  });

  test('a reply echoed as two assistant turns is one turn, and a reminder after the results is part of their turn', () => {
    const f = followUp(
      [prompt],
      [
        prompt,
        { role: 'assistant', content: [{ type: 'text', text: 'I will run one command.' }] },
        { role: 'assistant', content: [use] },
        { role: 'user', content: [result] },
        { role: 'user', content: '<reminder>Keep going.</reminder>' },
      ],
    );
    const added = addedTurns(f);
    expect(added.map((t) => [t.role, t.blocks.map((b) => b.type), t.sentAt])).toEqual([
      ['assistant', ['text', 'tool_use'], [1, 2]],
      ['user', ['tool_result', 'text'], [3, 4]],
    ]);
    // The results are still placed in the turn they were sent in.
    expect(newToolResults(f).map((r) => r.turn)).toEqual([3]);
  });

  test('turns of different roles, or of a role that is no string, stay apart', () => {
    const turns = turnsOf(
      entry([prompt, { role: 'assistant', content: [use] }, { content: 'x' }, { content: 'y' }, prompt]),
    )!;
    expect(combineTurns(turns).map((t) => t.sentAt)).toEqual([[0], [1], [2], [3], [4]]);
  });
});
