import { describe, expect, test } from 'vitest';
import { runSurface } from '../../src/fuzz/run-surface.js';
import { findSurface, SURFACES } from '../../src/fuzz/surfaces.js';

describe('fuzz surfaces', () => {
  test.each(['sse-decoder', 'sse-limits', 'line-limits', 'stream-reducer', 'mock-scenario-replies'])(
    'the %s surface keeps its rule over 300 cases',
    async (name) => {
      const surface = findSurface(name);
      expect(surface).toBeDefined();
      const result = await runSurface(surface!, { seed: 424242, runs: 300 });
      if (result.status === 'failed') {
        throw new Error(
          `${result.error}\ncounterexample: ${result.counterexample}\nseed ${result.seed} path ${result.path}`,
        );
      }
      expect(result).toMatchObject({ surface: name, status: 'passed', cases: 300 });
    },
  );

  test('every surface has a unique name and a description', () => {
    expect(new Set(SURFACES.map((s) => s.name)).size).toBe(SURFACES.length);
    for (const s of SURFACES) expect(s.description.length).toBeGreaterThan(20);
  });
});
