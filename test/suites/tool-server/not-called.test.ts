import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { quickSuite, runAgainst, serverScript, stdioTarget } from './helpers.js';

test('a server with write_file and a read-only tool: echo is called, write_file is not, and the skip message names it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-not-called-'));
  const log = join(dir, 'calls.txt');
  process.env.WIRECHECK_TEST_CALL_LOG = log;
  try {
    const result = await runAgainst(
      stdioTarget(`${serverScript('write-file-tool')} --transport stdio`),
      { only: ['tool-server.tools.generated-arguments', 'tool-server.tools.not-called'] },
      quickSuite,
    );
    const byId = new Map(result.checks.map((c) => [c.id, c]));
    expect(byId.get('tool-server.tools.generated-arguments')?.status).toBe('pass');
    const note = byId.get('tool-server.tools.not-called');
    expect(note?.status).toBe('skip');
    expect(note?.message).toMatch(
      /tools not called \(not annotated readOnlyHint: true.*\): add, diagnostics, write_file/,
    );
    const calls = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls)).toEqual(new Set(['echo']));
    // echo is named among the called tools, with why it could be and every call counted, and nowhere else.
    expect(note?.message).toMatch(
      new RegExp(
        `^called: echo \\(readOnlyHint: true, ${calls.length} call${calls.length === 1 ? '' : 's'}\\);`,
      ),
    );
    expect(note?.message.replace(/^called: [^;]*/, '')).not.toMatch(/echo/);
  } finally {
    delete process.env.WIRECHECK_TEST_CALL_LOG;
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
