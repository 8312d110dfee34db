import { beforeAll, expect, test } from 'vitest';
import { referenceToolClientCommand } from '../../../src/suites/tool-client/index.js';
import { determinismJobs } from '../../determinism-jobs.js';
import { ensureBuilt, notPassed, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// The reference client (`wirecheck tool-client`, src/clients/tools) through the same
// contract as any other client, five times with one seed, --jobs 1 and the default in turn (issue "Determinism": same seed,
// same verdicts; the broken clients' runs are in determinism.test.ts).
const RUNS = 5;

test(`the reference tool client passes every check over both transports, in each of ${RUNS} runs with one seed`, async () => {
  for (let i = 0; i < RUNS; i++) {
    const result = await runAgainst(referenceToolClientCommand(), { jobs: determinismJobs(i) });
    expect({ run: i, notPassed: notPassed(result) }).toEqual({ run: i, notPassed: [] });
    expect(result.summary.passed).toBe(result.checks.length);
    expect(result.checks.length).toBeGreaterThan(40);
  }
}, 600_000);
