import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, expect, test } from 'vitest';
import { arbRoundTrip } from '../../../src/suites/tool-client/arbitraries.js';
import { ensureBuilt, nodeCommand, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

test('a round trip without arguments leaves the key out: every case is JSON', () => {
  const cases = fc.sample(arbRoundTrip, { numRuns: 200, seed: 7 });
  expect(cases.some((c) => !('arguments' in c))).toBe(true);
  for (const c of cases) {
    expect(Object.entries(c).filter(([, v]) => v === undefined)).toEqual([]);
    expect(JSON.parse(JSON.stringify(c))).toEqual(c);
  }
});

test('every counterexample of a failing result.round-trip run is saved as JSON, not only as text', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-round-trip-'));
  try {
    const result = await runAgainst(nodeCommand('./clients/wrong-result.mjs'), {
      only: ['tool-client.stdio.result.round-trip', 'tool-client.sse.result.round-trip'],
      reportDir: dir,
    });
    const failed = result.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.id)).toEqual([
      'tool-client.stdio.result.round-trip',
      'tool-client.sse.result.round-trip',
    ]);
    const files = await readdir(join(dir, 'counterexamples'));
    expect(files).toHaveLength(2);
    for (const file of files) {
      const fixture = JSON.parse(await readFile(join(dir, 'counterexamples', file), 'utf8'));
      expect(fixture.counterexampleText, file).toBeUndefined();
      expect(fixture.counterexample, file).toMatchObject({ tool: { name: expect.any(String) } });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 180_000);
