import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { createSuitePrinter } from '../../../src/reporters/console.js';
import { quickSuite, runAgainst, testServer } from './helpers.js';

test('a stdio server that stops starting mid-run: its exit is printed once, the run stops at the first new session it needs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-dies-'));
  process.env.WIRECHECK_TEST_STARTS_FILE = join(dir, 'starts');
  try {
    const result = await runAgainst(await testServer('dies-from-third-start', 'stdio'), {}, quickSuite);
    const gone = result.checks.filter((c) => c.targetGone === true);
    expect(gone).toHaveLength(1);
    expect(gone[0]!.message).toMatch(
      /^the server started for a new session: the server process exited with code 1/,
    );
    expect(gone[0]!.message).not.toMatch(/a new server process the server process/);
    expect(result.stopped?.kind).toBe('target-gone');
    // Every failure before the stop is the same exit, as one cause.
    const failed = result.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
    expect(failed.length).toBeGreaterThan(1);
    expect(new Set(failed.map((c) => c.sharedCause))).toEqual(new Set([gone[0]!.sharedCause]));
    const printer = createSuitePrinter({ color: false }, { verbose: false });
    const lines = result.checks.map((c) => printer.add(c)).filter((t) => t !== undefined);
    const text = [...lines, ...printer.end(result)].join('\n');
    // Printed once for the failures; a check that saw nothing to judge may quote it in its own reason.
    const unjudged = result.checks.filter(
      (c) => c.skipKind === 'not-exercised' && (c.message ?? '').includes('gone for good'),
    ).length;
    expect(text.split('gone for good').length - 1 - unjudged).toBe(1);
  } finally {
    delete process.env.WIRECHECK_TEST_STARTS_FILE;
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
