import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'test/cli/targets/buggy-suite-cli.mjs');

let dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    }),
  );
}

describe('an uncaught error during a run is a harness error: exit 2, a message naming a wirecheck bug, the report written', () => {
  for (const bug of ['rejection', 'timer'] as const) {
    test(`a suite's ${bug === 'rejection' ? 'unhandled rejection' : 'exception thrown from a timer'}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'wirecheck-harness-error-'));
      dirs.push(dir);
      const result = await run(['test', 'buggy', '--report-dir', dir, bug]);
      const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      expect(result.code, context).toBe(2);
      expect(result.ms, context).toBeLessThan(20_000);
      expect(result.stderr).toContain(
        'wirecheck: WC_INTERNAL: an uncaught error stopped the run: this is a bug of wirecheck (or of a suite), please report it',
      );
      expect(result.stderr).toContain(
        bug === 'rejection' ? 'a promise of the suite nobody awaited' : 'thrown from a timer of the suite',
      );
      const results = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
      expect(results.stopped?.kind).toBe('harness-error');
      expect(results.checks.map((c) => [c.id, c.status, c.skipKind ?? ''])).toEqual([
        ['buggy.fine', 'pass', ''],
        ['buggy.bug', 'skip', 'not-run'],
        ['buggy.after', 'skip', 'not-run'],
      ]);
    }, 40_000);
  }

  test('a HarnessBug a check throws (wirecheck caught itself in a state it must never reach) blames no target: the same stop', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-harness-error-'));
    dirs.push(dir);
    const result = await run(['test', 'buggy', '--report-dir', dir, 'caught']);
    const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    expect(result.code, context).toBe(2);
    expect(result.stderr).toContain(
      'wirecheck: WC_INTERNAL: wirecheck failed during buggy.bug (a bug of wirecheck or of a suite): a list of the suite left this check out. Please report it',
    );
    expect(result.stdout).not.toMatch(/FAIL/);
    const results = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
    expect(results.stopped?.kind).toBe('harness-error');
    expect(results.summary.failed).toBe(0);
    const [fine, bug, after] = results.checks;
    expect([fine?.status, bug?.skipKind, after?.skipKind]).toEqual(['pass', 'not-run', 'not-run']);
    expect(bug?.message).toBe(
      'not run: wirecheck failed during this check (a bug of wirecheck or of a suite, not of the target): a list of the suite left this check out',
    );
  }, 40_000);
});
