import { describe, expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { createMessagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { verdictById } from '../../broken-verdicts.js';
import { determinismJobs } from '../../determinism-jobs.js';
import { type Break, startFakeService } from './fake-service.js';

// Same seed, same target, same verdicts: the whole suite (every property-based check
// included) five times against the compliant fake and against broken ones.
const KEY_ENV = 'WIRECHECK_TEST_DETERMINISM_KEY';
const KEY = 'wc-test-key-determinism';
const suite = createMessagesServiceSuite({ abortSettleMs: 0 });

const VARIANTS: Array<readonly Break[]> = [
  [],
  ['crashes-on-role-and-serves-missing-max-tokens'],
  ['accepts-meaningless'],
  ['out-of-order'],
  ['error-body-without-type'],
];

describe('five runs with one seed give one verdict set', () => {
  test.each(VARIANTS.map((breaks) => [breaks.join(', ') || 'the compliant service', breaks] as const))(
    '%s',
    async (_name, breaks) => {
      process.env[KEY_ENV] = KEY;
      const fake = await startFakeService({ apiKey: KEY, breaks });
      try {
        const runs: Record<string, string>[] = [];
        for (let i = 0; i < 5; i++) {
          const result = await runSuite(
            suite,
            { baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV },
            { seed: 4242, runs: 10, jobs: determinismJobs(i) },
          );
          runs.push(verdictById(result));
        }
        for (const run of runs.slice(1)) expect(run).toEqual(runs[0]);
        expect(Object.keys(runs[0]!)).toContain('messages-service.requests.valid-accepted');
      } finally {
        await fake.close();
        delete process.env[KEY_ENV];
      }
    },
    60_000,
  );
});
