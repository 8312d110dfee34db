import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { runAgainst, runnerCommand } from './helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

// A runner that ignores WIRECHECK_WORKDIR runs the suite's commands wherever it was started: in
// the user's project. The refusal checks' look-alike of a blocked command must remove nothing there.
test('a runner that runs commands in the directory it started in leaves that directory’s folders alone', async () => {
  dir = mkdtempSync(join(tmpdir(), 'wirecheck-user-project-'));
  // Writable by whichever user the runner runs as, as the user's own project is to them.
  chmodSync(dir, 0o777);
  for (const folder of ['build']) {
    mkdirSync(join(dir, folder), { mode: 0o777 });
    chmodSync(join(dir, folder), 0o777);
    writeFileSync(join(dir, folder, 'keep.txt'), 'the user’s\n');
  }
  const result = await runAgainst(`cd ${shellQuote(dir)} && ${runnerCommand('run-in-cwd')}`, {
    only: ['runner.refusal.no-false-positive', 'runner.refusal.harmless-runs'],
  });
  expect(result.checks.find((c) => c.id === 'runner.refusal.harmless-runs')?.status).toBe('pass');
  expect(existsSync(join(dir, 'build', 'keep.txt'))).toBe(true);
  // It ran there (nothing refused it), and removed only what it made.
  expect(result.checks.find((c) => c.id === 'runner.refusal.no-false-positive')?.status).toBe('pass');
  expect(readdirSync(dir).filter((f) => f.startsWith('wirecheck-scratch'))).toEqual([]);
}, 60_000);
