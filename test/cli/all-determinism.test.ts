import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';
import { buildDist, distIsFresh } from '../global-setup.js';
import { cli, withoutTimes } from './fake-suites.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** The console of `all` without what changes between two runs: times, ports, the report folder. */
function comparable(stdout: string, dir: string): string {
  return withoutTimes(stdout.replaceAll(dir, 'DIR'))
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/--port \d+/g, '--port PORT');
}

async function verdicts(dir: string, folder: string): Promise<Record<string, string>> {
  const result = SuiteResult.parse(JSON.parse(await readFile(join(dir, folder, 'results.json'), 'utf8')));
  return Object.fromEntries(result.checks.map((c) => [c.id, c.skipKind ?? c.status]));
}

const FOLDERS = [
  'messages-service',
  'messages-client',
  'runner',
  'agent',
  'tool-server',
  'tool-server-stdio',
  'tool-server-streamable-http',
  'tool-client',
];

describe('wirecheck all: the suites overlapping give what one suite after another gives', () => {
  test('with one seed, --jobs 1 and --jobs 2 print the same console (but times and ports) and give the same verdicts', async () => {
    if (!distIsFresh()) buildDist();
    const runs: { stdout: string; code: number; dir: string }[] = [];
    for (const jobs of ['1', '2']) {
      const dir = await mkdtemp(join(tmpdir(), 'wirecheck-all-determinism-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      // A quarter of each suite's checks, 5 property runs: every suite, in a fraction of the time.
      const run = await cli([
        'all',
        '--seed',
        '7',
        '--runs',
        '5',
        '--shard',
        '1/4',
        '--jobs',
        jobs,
        '--report-dir',
        dir,
      ]);
      runs.push({ ...run, dir });
    }
    const [one, two] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(one.code, one.stdout).toBe(0);
    expect(two.code, two.stdout).toBe(0);
    expect(comparable(two.stdout, two.dir)).toBe(comparable(one.stdout, one.dir));
    for (const folder of FOLDERS) {
      const first = await verdicts(one.dir, folder);
      expect(Object.keys(first).length).toBeGreaterThan(0);
      expect(await verdicts(two.dir, folder)).toEqual(first);
    }
    // A suite of one check at a time lets the next suite open at once: with 2 jobs, tool-client
    // begins while the last tool-server run is still starting its server (with 1 job, after it).
    const began = async (dir: string, folder: string) =>
      Date.parse(
        SuiteResult.parse(JSON.parse(await readFile(join(dir, folder, 'results.json'), 'utf8'))).startedAt,
      );
    expect(await began(two.dir, 'tool-client')).toBeLessThan(
      await began(two.dir, 'tool-server-streamable-http'),
    );
    expect(await began(one.dir, 'tool-client')).toBeGreaterThan(
      await began(one.dir, 'tool-server-streamable-http'),
    );
  }, 600_000);
});
