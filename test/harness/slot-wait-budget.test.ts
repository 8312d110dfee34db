import { expect, test } from 'vitest';
import type { Check, Suite } from '../../src/harness/check.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { SharedWork } from '../../src/harness/shared-work.js';

// A check that waits on work another check does lends its job slot; the slot may go to a long
// check, and taking it back then waits behind that one. That wait is not the check's own time:
// with --jobs 2 as with --jobs 1, the check passes within its budget.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const base = { clause: 'c', description: 'd', level: 'must', basis: 'spec', rule: 'r' } as const;

function toySuite(): Suite<object, object> {
  let work = new SharedWork();
  const session = (env: Parameters<Check<object>['run']>[1]) =>
    work.get('session', () => sleep(200).then(() => 'ok'), env);
  return {
    name: 'toy',
    description: 'toy',
    concurrent: true,
    describeTarget: () => 'toy',
    targetArgs: () => [],
    async open() {
      work = new SharedWork();
      return { async close() {} };
    },
    checks: [
      { ...base, id: 'toy.builds', timeoutMs: 600, run: async (_ctx, env) => void (await session(env)) },
      { ...base, id: 'toy.waits', timeoutMs: 600, run: async (_ctx, env) => void (await session(env)) },
      { ...base, id: 'toy.long-1', timeoutMs: 5000, run: async () => void (await sleep(1000)) },
      { ...base, id: 'toy.long-2', timeoutMs: 5000, run: async () => void (await sleep(1000)) },
    ],
  };
}

test.each([1, 2])(
  'with --jobs %i, a check waiting in line for its lent slot is not cut by its budget',
  async (jobs) => {
    const result = await runSuite(toySuite(), {}, { seed: 1, jobs });
    expect(result.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      ['toy.builds', 'pass', ''],
      ['toy.waits', 'pass', ''],
      ['toy.long-1', 'pass', ''],
      ['toy.long-2', 'pass', ''],
    ]);
  },
);
