import { describe, expect, test } from 'vitest';
import type { Suite } from '../../src/harness/check.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { readCompatibilityTable, type TabledSuite, tableDifferences } from './tables.js';
import { THIRD_PARTY_TARGETS, type ThirdPartyTargets } from './targets.js';

/**
 * The seeds of a sweep: WIRECHECK_SWEEP_SEEDS, comma-separated (default 1,2,3). The tests run
 * each table once with their own seed; a verdict that holds at one seed but not at another is
 * a flaky check or a table that is only true by luck, and only more seeds show it.
 */
export function sweepSeeds(value = process.env.WIRECHECK_SWEEP_SEEDS ?? '1,2,3'): number[] {
  const parts = value.split(',').map((s) => s.trim());
  const seeds = parts.map(Number);
  if (!parts.every((s) => /^\d+$/.test(s)) || !seeds.every(Number.isSafeInteger)) {
    throw new Error(
      `WIRECHECK_SWEEP_SEEDS: expected comma-separated integers >= 0, got ${JSON.stringify(value)}`,
    );
  }
  return seeds;
}

/** What WIRECHECK_SWEEP_ONLY can pick: every column of the tables, and the references' run. */
const SWEPT = [
  ...Object.values(THIRD_PARTY_TARGETS).flatMap((targets) => Object.keys(targets)),
  'references',
];

/**
 * WIRECHECK_SWEEP_ONLY: comma-separated parts of names; a target runs when its column contains
 * one, the references' run when `references` does. A part that names nothing is an error, not
 * a sweep of nothing.
 */
export function selected(name: string, value = process.env.WIRECHECK_SWEEP_ONLY ?? ''): boolean {
  const only = value
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  const unknown = only.filter((o) => !SWEPT.some((n) => n.includes(o)));
  if (unknown.length > 0) {
    throw new Error(
      `WIRECHECK_SWEEP_ONLY: ${unknown.join(', ')} names no target; the targets: ${SWEPT.join(', ')}`,
    );
  }
  return only.length === 0 || only.some((o) => name.includes(o));
}

/**
 * Run `suite` as a user would (quick tier, its own property runs, default jobs) against every
 * third-party target of its compatibility table, once per seed, and fail a target whose
 * verdicts differ from its column at any seed, naming seed, check and both outcomes.
 */
export function sweep<T, C>(name: TabledSuite, suite: Suite<T, C>, targets: ThirdPartyTargets<T>): void {
  const seeds = sweepSeeds();
  describe(`${name}: docs/ holds at seeds ${seeds.join(', ')}`, () => {
    for (const column of Object.keys(targets).filter((column) => selected(column))) {
      test(column, async () => {
        const table = await readCompatibilityTable(name);
        const differences: string[] = [];
        for (const seed of seeds) {
          const started = await targets[column]!();
          try {
            const result = await runSuite(suite, started.target, { seed });
            if (result.error !== undefined)
              differences.push(`seed ${seed}: the run did not judge: ${result.error.message}`);
            for (const d of tableDifferences(name, table, column, result))
              differences.push(`seed ${seed}: ${d}`);
          } finally {
            await started.close();
          }
        }
        expect(differences).toEqual([]);
      });
    }
  });
}
