import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';

const BIN = resolve(import.meta.dirname, '../../bin/wirecheck.js');

/**
 * `wirecheck ARGS | true`: the reader is gone before wirecheck writes a byte, so every write
 * fails with EPIPE. Returns wirecheck's own exit status and stderr.
 */
async function pipedToGoneReader(args: string): Promise<{ status: string; stderr: string }> {
  const err = join(tmpdir(), `wirecheck-epipe-${process.pid}-${Date.now()}.err`);
  try {
    const out = await new Promise<string>((done, fail) => {
      const child = spawn(
        'bash',
        ['-c', `"$NODE" "$BIN" ${args} 2>"$ERR" | true; echo "\${PIPESTATUS[0]}"; cat "$ERR"`],
        {
          env: { ...process.env, NODE: process.execPath, BIN, ERR: err },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
      });
      child.on('error', fail);
      child.on('close', () => done(text));
    });
    const [status = '', ...stderr] = out.split('\n');
    return { status, stderr: stderr.join('\n') };
  } finally {
    await rm(err, { force: true });
  }
}

test('a reader that is gone (`wirecheck list | true`) ends wirecheck quietly with status 0, not an unhandled EPIPE', async () => {
  const { status, stderr } = await pipedToGoneReader('list');
  expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  expect(status).toBe('0');
}, 60_000);

test('a run whose output reader is gone (`wirecheck test ... | true`) still ends with its own status and writes its reports', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-epipe-run-'));
  try {
    const reportDir = join(dir, 'report');
    // `cat` echoes each tool_use line back: a runner that cannot run, so the status is 2, not 0.
    const { status, stderr } = await pipedToGoneReader(`test runner --runner cat --report-dir ${reportDir}`);
    expect(status, stderr).toBe('2');
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(stderr).toContain('WC_TARGET_UNAVAILABLE');
    const results = SuiteResult.parse(JSON.parse(await readFile(join(reportDir, 'results.json'), 'utf8')));
    expect(results.error?.code).toBe('WC_TARGET_UNAVAILABLE');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
