import { describe, expect, test } from 'vitest';
import type { CheckResult } from '../../src/harness/results.js';
import {
  COMPATIBILITY_TABLES,
  type CompatibilityTable,
  readCompatibilityTable,
  type TabledSuite,
  tableDifferences,
} from './tables.js';
import { THIRD_PARTY_TARGETS } from './targets.js';

function check(id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult {
  return { id, level: 'must', status, message: `${id} ${status}`, durationMs: 1, ...extra } as CheckResult;
}

function table(rows: Record<string, Record<string, string>>): CompatibilityTable {
  const columns = [...new Set(Object.values(rows).flatMap((cells) => Object.keys(cells)))];
  return { columns, rows: new Map(Object.entries(rows)) };
}

describe('a table that gives every check a row (messages)', () => {
  const t = table({ 'a.one': { X: 'pass', Y: 'warn' }, 'a.two': { X: 'fail', Y: 'fail' } });

  test('a run that matches its column has no difference', () => {
    expect(
      tableDifferences('messages-client', t, 'X', {
        checks: [check('a.one', 'pass'), check('a.two', 'fail')],
      }),
    ).toEqual([]);
  });

  test('a check measured otherwise, a row without a check and a check without a row are each named', () => {
    const differences = tableDifferences('messages-client', t, 'Y', {
      checks: [check('a.one', 'pass'), check('a.new', 'pass')],
    });
    expect(differences).toEqual([
      'a.one: table says warn, measured pass: a.one pass',
      'a.two: table says fail, measured (no such check)',
      'a.new: table says (no row), measured pass: a.new pass',
    ]);
  });

  test('a column the table does not have is one difference, not a pass', () => {
    expect(tableDifferences('messages-service', t, 'Z', { checks: [check('a.one', 'pass')] })).toEqual([
      'docs/messages-compatibility.md has no column "Z"',
    ]);
  });
});

describe('a table that lists only what does not pass (tool servers and clients)', () => {
  const t = table({ 's.fails': { S: 'fail', T: 'pass' }, 's.transport': { S: 'n/a', T: 'pass' } });

  test('n/a is a skip, and an unlisted check may pass', () => {
    const run = [check('s.fails', 'fail'), check('s.transport', 'skip'), check('s.other', 'pass')];
    expect(tableDifferences('tool-server', t, 'S', { checks: run })).toEqual([]);
  });

  test('an unlisted failure or warning is a difference', () => {
    const run = [check('s.fails', 'pass'), check('s.transport', 'pass'), check('s.other', 'warn')];
    expect(tableDifferences('tool-server', t, 'T', { checks: run })).toEqual([
      's.other: table says pass (no row), measured warn: s.other warn',
    ]);
  });

  test('tool-client: an unlisted skip is allowed only as not applicable (another revision)', () => {
    const ok = [
      check('s.fails', 'pass'),
      check('s.transport', 'pass'),
      check('s.rev', 'skip', { skipKind: 'not-applicable' }),
    ];
    expect(tableDifferences('tool-client', t, 'T', { checks: ok })).toEqual([]);
    const quiet = [
      check('s.fails', 'pass'),
      check('s.transport', 'pass'),
      check('s.rev', 'skip', { skipKind: 'not-exercised' }),
    ];
    expect(tableDifferences('tool-client', t, 'T', { checks: quiet })).toEqual([
      's.rev: table says pass (no row), measured skip: s.rev skip',
    ]);
  });
});

describe('docs/*-compatibility.md', () => {
  for (const suite of Object.keys(COMPATIBILITY_TABLES) as TabledSuite[]) {
    test(`${suite}: the table has a column for each target the tests measure, and no other`, async () => {
      const { columns } = await readCompatibilityTable(suite);
      expect(columns).toEqual(Object.keys(THIRD_PARTY_TARGETS[suite]));
    });
  }
});
