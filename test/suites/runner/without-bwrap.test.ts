import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { createRunnerSuite, referenceRunnerCommand } from '../../../src/suites/runner/index.js';
import { notPassed, SEED } from './helpers.js';

// A fresh machine may have no bubblewrap: the reference runner then isolates with
// util-linux (as root, as here), and the runner suite's reference run still passes. A PATH
// without bwrap is a machine without it: the runner looks for it on PATH (and in sbin) only.

const base = mkdtempSync(join(tmpdir(), 'wirecheck-without-bwrap-'));
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));
const bin = join(base, 'bin');
mkdirSync(bin);
for (const tool of ['sh', 'bash', 'prlimit', 'unshare', 'setpriv', 'mkfifo', 'setsid', 'mount']) {
  symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
}
const env = { ...process.env, PATH: bin };
const isRoot = process.getuid?.() === 0;

test('with no bwrap on PATH, run-bash isolates with util-linux as root, and refuses to run otherwise', () => {
  const workdir = join(base, 'wd');
  const [node, cli] = [process.execPath, join(import.meta.dirname, '../../../bin/wirecheck.js')];
  const ran = spawnSync(node, [cli, 'run-bash', '--workdir', workdir], {
    env,
    input: `${JSON.stringify({ type: 'tool_use', id: 'a', name: 'bash', input: { command: 'echo hi' } })}\n`,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(ran.stderr).toContain('not used: bwrap: not installed');
  if (isRoot) {
    expect(ran.status).toBe(0);
    expect(ran.stderr).toContain('isolation util-linux');
    expect(JSON.parse(ran.stdout)).toMatchObject({ content: 'hi\n', is_error: false });
  } else {
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('--isolation none');
  }
});

test('with no bwrap on PATH, the reference runner passes every quick check of the runner suite (as root)', async () => {
  const suite = createRunnerSuite({ maxCommandRuns: 3, maxShrinkRuns: 3, baseEnv: env });
  const attempt = runSuite(suite, { runner: referenceRunnerCommand() }, { seed: SEED, runs: 3 });
  if (!isRoot) {
    await expect(attempt).rejects.toThrow(/isolation/);
    return;
  }
  const result = await attempt;
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.failed).toBe(0);
  expect(result.summary.passed).toBeGreaterThanOrEqual(40);
}, 300_000);
