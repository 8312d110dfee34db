import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';
import { selected, sweepSeeds } from './sweep.js';

// Every suite against its reference (`wirecheck all --strict`) at each seed of the sweep: the
// references fail and warn nothing at any seed, and what they skip does not depend on the seed.

const WIRECHECK = fileURLToPath(new URL('../../bin/wirecheck.js', import.meta.url));
const seeds = sweepSeeds();

interface AllRun {
  readonly exitCode: number | null;
  readonly output: string;
  /** `suite directory: check id` -> status. */
  readonly verdicts: Record<string, string>;
}

async function runAll(seed: number): Promise<AllRun> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-sweep-all-'));
  try {
    const args = [WIRECHECK, 'all', '--seed', String(seed), '--strict', '--report-dir', dir];
    const { exitCode, output } = await new Promise<{ exitCode: number | null; output: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        args,
        { timeout: 900_000, maxBuffer: 64 << 20 },
        (error, stdout, stderr) => {
          resolve({ exitCode: error === null ? 0 : (child.exitCode ?? null), output: `${stdout}${stderr}` });
        },
      );
    });
    const verdicts: Record<string, string> = {};
    for (const suiteDir of (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory())) {
      const result = SuiteResult.parse(
        JSON.parse(await readFile(join(dir, suiteDir.name, 'results.json'), 'utf8')),
      );
      for (const c of result.checks) verdicts[`${suiteDir.name}: ${c.id}`] = c.status;
    }
    return { exitCode, output, verdicts };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (selected('references')) {
  test(`wirecheck all --strict: the references pass at seeds ${seeds.join(', ')}, their skips the same at each`, async () => {
    const runs = new Map<number, AllRun>();
    for (const seed of seeds) runs.set(seed, await runAll(seed));
    const first = runs.get(seeds[0]!)!;
    for (const [seed, run] of runs) {
      expect(run.exitCode, `seed ${seed}:\n${run.output.slice(-4000)}`).toBe(0);
      const notPassing = Object.entries(run.verdicts).filter(([, s]) => s === 'fail' || s === 'warn');
      expect(notPassing, `seed ${seed}`).toEqual([]);
      expect(Object.keys(run.verdicts).length, `seed ${seed}: checks judged`).toBeGreaterThan(300);
      expect(run.verdicts, `seed ${seed} against seed ${seeds[0]}`).toEqual(first.verdicts);
    }
  });
}
