import { expect, test } from 'vitest';
import { differences } from '../../../src/protocol/compare.js';
import { normalizeMessageResponse } from '../../../src/protocol/messages/index.js';
import { bufferedShape, firstDifference } from '../../../src/suites/messages-client/compare.js';
import { MIXED_MESSAGE } from '../../../src/suites/messages-client/messages.js';

test('equal JSON values have no difference, whatever the key order', () => {
  expect(firstDifference({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBeUndefined();
});

test('the first difference is named by its path, with both values (the compatible export)', () => {
  expect(
    firstDifference(
      { content: [{ input: { city: 'Zürich' } }] },
      { content: [{ input: { city: 'Zurich' } }] },
    ),
  ).toBe('$.content[0].input.city: expected "Zürich", got "Zurich"');
  expect(firstDifference({ a: [1, 2] }, { a: [1] })).toBe('$.a: expected [1,2], got [1]');
  expect(firstDifference({ 'key with space': 1 }, {})).toBe('$["key with space"]: missing (expected 1)');
  expect(firstDifference({}, { extra: true })).toBe('$.extra: not expected (got true)');
  expect(firstDifference({}, { extra: true }, { extra: 'tolerate' })).toBeUndefined();
  expect(firstDifference({ a: {} }, { a: [] })).toBe('$.a: expected {}, got []');
});

test('the buffered shape keeps the fields the spec names; a client adding fields still compares equal', () => {
  const withExtras = {
    ...MIXED_MESSAGE,
    container: null,
    parsed_output: null,
    usage: { ...MIXED_MESSAGE.usage, cache_read_input_tokens: 0 },
    content: MIXED_MESSAGE.content.map((b) => ({ ...b, citations: null })),
  };
  expect(
    differences(
      normalizeMessageResponse(bufferedShape(MIXED_MESSAGE)),
      normalizeMessageResponse(withExtras),
      {
        extra: 'tolerate',
      },
    ),
  ).toEqual([]);
});

test("a bash input's restart: false written out or left out compares equal; restart: true left out does not", () => {
  const bash = MIXED_MESSAGE.content.find((b) => b.type === 'tool_use' && b.name === 'bash');
  expect(bash).toMatchObject({ input: { restart: false } });
  const withRestart = (restart: boolean | undefined) => ({
    ...MIXED_MESSAGE,
    content: MIXED_MESSAGE.content.map((b) => {
      if (b !== bash || b.type !== 'tool_use') return b;
      const { restart: _, ...input } = b.input as Record<string, unknown>;
      return { ...b, input: restart === undefined ? input : { ...input, restart } };
    }),
  });
  const compare = (expected: unknown, found: unknown) =>
    differences(
      normalizeMessageResponse(bufferedShape(expected as typeof MIXED_MESSAGE)),
      normalizeMessageResponse(found),
      {
        extra: 'tolerate',
      },
    );
  expect(compare(withRestart(false), withRestart(undefined))).toEqual([]);
  expect(compare(withRestart(undefined), withRestart(false))).toEqual([]);
  expect(compare(withRestart(true), withRestart(undefined))).not.toEqual([]);
});
