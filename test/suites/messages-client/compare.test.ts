import { expect, test } from 'vitest';
import { bufferedShape, firstDifference } from '../../../src/suites/messages-client/compare.js';
import { MIXED_MESSAGE } from '../../../src/suites/messages-client/messages.js';

test('equal JSON values have no difference, whatever the key order', () => {
  expect(firstDifference({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBeUndefined();
});

test('the first difference is named by its path', () => {
  expect(
    firstDifference(
      { content: [{ input: { city: 'Zürich' } }] },
      { content: [{ input: { city: 'Zurich' } }] },
    ),
  ).toBe('$.content[0].input.city: expected "Zürich", got "Zurich"');
  expect(firstDifference({ a: [1, 2] }, { a: [1] })).toBe('$.a: expected 2 elements, got 1');
  expect(firstDifference({ 'key with space': 1 }, {})).toBe('$: missing key "key with space"');
  expect(firstDifference({}, { extra: true })).toBe('$: unexpected key "extra"');
  expect(firstDifference({ a: {} }, { a: [] })).toBe('$.a: expected an object, got []');
});

test('the buffered shape keeps the fields the spec names and drops the rest', () => {
  const withExtras = {
    ...MIXED_MESSAGE,
    container: null,
    usage: { ...MIXED_MESSAGE.usage, cache_read_input_tokens: 0 },
    content: MIXED_MESSAGE.content.map((b) => ({ ...b, citations: null })),
  };
  expect(firstDifference(bufferedShape(MIXED_MESSAGE), bufferedShape(withExtras))).toBeUndefined();
});
