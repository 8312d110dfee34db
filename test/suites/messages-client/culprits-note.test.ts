import { expect, test } from 'vitest';
import { culpritsNote } from '../../../src/suites/messages-client/checks/stream.js';

const BOM = 'a byte order mark';
const IDS = 'id: lines';
const FIELD = 'an unknown field line';

test('names the pieces the client tripped on alone', () => {
  expect(
    culpritsNote([
      [BOM, 'tripped'],
      [IDS, 'handled'],
      [FIELD, 'tripped'],
    ]),
  ).toBe('served one at a time, the client trips on a byte order mark, an unknown field line');
});

test('says when each piece alone was handled, so only their combination trips the client', () => {
  expect(
    culpritsNote([
      [BOM, 'handled'],
      [IDS, 'handled'],
      [FIELD, 'handled'],
    ]),
  ).toBe('served one at a time, each was handled: only together do they trip the client');
});

test('names the pieces left unserved when time ran short, and what the others showed', () => {
  expect(
    culpritsNote([
      [BOM, 'handled'],
      [IDS, 'handled'],
      [FIELD, 'untried'],
    ]),
  ).toBe(
    'served one at a time, a byte order mark, id: lines handled; an unknown field line not served alone, for want of time',
  );
  expect(
    culpritsNote([
      [BOM, 'tripped'],
      [IDS, 'untried'],
      [FIELD, 'untried'],
    ]),
  ).toBe(
    'served one at a time, the client trips on a byte order mark; id: lines, an unknown field line not served alone, for want of time',
  );
});

test('a piece whose run alone judged nothing is named so, never counted as handled', () => {
  expect(
    culpritsNote([
      [BOM, 'unjudged'],
      [IDS, 'handled'],
      [FIELD, 'handled'],
    ]),
  ).toBe(
    'served one at a time, id: lines, an unknown field line handled; a byte order mark alone judged nothing',
  );
  expect(
    culpritsNote([
      [BOM, 'unjudged'],
      [IDS, 'untried'],
    ]),
  ).toBe(
    'served one at a time, none was seen to trip the client; a byte order mark alone judged nothing; id: lines not served alone, for want of time',
  );
});
