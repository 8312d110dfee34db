import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { runAgainst, runnerCommand } from './helpers.js';

let dir: string | undefined;
const home = process.cwd();
afterEach(() => {
  process.chdir(home);
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

// Started in the user's directory (as wirecheck is, from the project), such a runner makes the
// checks' marker files there; the suite removes those it made, leaves the user's own, and says so.
test('the marker files the checks’ commands make in the directory the runner started in are removed at the close, and a warning names them', async () => {
  dir = mkdtempSync(join(tmpdir(), 'wirecheck-user-project-'));
  chmodSync(dir, 0o777);
  // One of the user's own, of a marker's name, there before the run: kept.
  writeFileSync(join(dir, 'wirecheck-was-here'), 'the user’s\n');
  writeFileSync(join(dir, 'notes.txt'), 'the user’s\n');
  process.chdir(dir);
  const result = await runAgainst(runnerCommand('run-in-cwd-no-refusal'), {
    only: [
      'runner.execution.workdir',
      'runner.refusal.rm-rf-root',
      'runner.processes.setsid-escapee',
      'runner.timeout.term-grace',
    ],
  });
  expect(result.checks.find((c) => c.id === 'runner.execution.workdir')?.status).toBe('fail');
  expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'wirecheck-was-here']);
  expect(result.warnings?.join('\n')).toMatch(
    /the runner ran commands in the directory it was started in \(.*\), not in WIRECHECK_WORKDIR: wirecheck removed the files the checks' commands made there \(.*\.wirecheck-escaped.*wirecheck-probe-1.*wirecheck-term-seen\.txt\)/,
  );
}, 90_000);
