import { describe, expect, test } from 'vitest';
import { verdictPhrase } from '../../broken-verdicts.js';
import { type BrokenCase, CASES, expected } from './broken-cases.js';
import { quickSuite, runAgainst, statusById, testServer } from './helpers.js';

function title(c: BrokenCase): string {
  return `a ${c.transport} server that ${c.flaw} ${verdictPhrase(c)}`;
}

describe('broken tool servers', () => {
  for (const c of CASES) {
    test(title(c), async () => {
      const want = expected(c);
      const result = await runAgainst(
        await testServer(c.server, c.transport),
        { only: Object.keys(want) },
        quickSuite,
      );
      expect(statusById(result)).toEqual(want);
    }, 90_000);
  }
});
