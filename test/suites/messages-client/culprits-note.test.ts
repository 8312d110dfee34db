import { expect, test } from 'vitest';
import { culpritsNote } from '../../../src/suites/messages-client/checks/stream.js';

const PIECES = ['a byte order mark', 'id: lines', 'an unknown field line'];

test('names the pieces the client tripped on alone', () => {
  expect(culpritsNote(PIECES, ['a byte order mark', 'an unknown field line'], [])).toBe(
    'served one at a time, the client trips on a byte order mark, an unknown field line',
  );
});

test('says when each piece alone was handled, so only their combination trips the client', () => {
  expect(culpritsNote(PIECES, [], [])).toBe(
    'served one at a time, each was handled: only together do they trip the client',
  );
});

test('names the pieces left unserved when time ran short, and what the others showed', () => {
  expect(culpritsNote(PIECES, [], ['an unknown field line'])).toBe(
    'served one at a time, a byte order mark, id: lines handled; an unknown field line not served alone, for want of time',
  );
  expect(culpritsNote(PIECES, ['a byte order mark'], ['id: lines', 'an unknown field line'])).toBe(
    'served one at a time, the client trips on a byte order mark; id: lines, an unknown field line not served alone, for want of time',
  );
});
