import { beforeAll, expect, test } from 'vitest';
import { referenceToolClientCommand } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, notPassed, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// The reference client (`wirecheck tool-client`, src/clients/tools) through the same
// contract as any other client, five times with one seed (issue "Determinism": same seed,
// same verdicts; the broken clients' runs are in determinism.test.ts).
const RUNS = 5;

test(`the reference tool client passes every check over both transports, in each of ${RUNS} runs with one seed`, async () => {
  for (let i = 0; i < RUNS; i++) {
    const result = await runAgainst(referenceToolClientCommand());
    expect({ run: i, notPassed: notPassed(result) }).toEqual({ run: i, notPassed: [] });
    // Every check passes but those of later MCP revisions (this run speaks 2024-11-05).
    const laterRevision = result.checks.filter(
      (c) =>
        c.status === 'skip' &&
        c.skipKind === 'not-applicable' &&
        /this run speaks 2024-11-05/.test(c.message ?? ''),
    );
    expect(laterRevision.map((c) => c.id).sort()).toEqual([
      'tool-client.sse.initialize.offers-revision',
      'tool-client.sse.protocol-version-header',
      'tool-client.stdio.initialize.offers-revision',
    ]);
    expect(result.summary.passed).toBe(result.checks.length - laterRevision.length);
    expect(result.checks.length).toBeGreaterThan(40);
  }
}, 600_000);
