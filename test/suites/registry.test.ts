import { expect, test } from 'vitest';
import { SUITES } from '../../src/suites/registry.js';

test('the registry offers every suite, each with a reference implementation', () => {
  expect(SUITES.map((e) => e.suite.name)).toEqual([
    'messages-service',
    'messages-client',
    'runner',
    'agent',
    'tool-server',
    'tool-client',
  ]);
  for (const entry of SUITES) expect(entry.reference).toBeTypeOf('function');
});

test('check ids are unique across the catalogue and start with their suite name', () => {
  const ids = SUITES.flatMap((e) => e.suite.checks.map((c: { id: string }) => c.id));
  expect(new Set(ids).size).toBe(ids.length);
  for (const entry of SUITES) {
    for (const check of entry.suite.checks) expect(check.id.startsWith(`${entry.suite.name}.`)).toBe(true);
  }
});
