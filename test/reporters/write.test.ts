import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { WirecheckError } from '../../src/harness/errors.js';
import { reportFiles, writeReports } from '../../src/reporters/write.js';
import { mixedResult } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-reports-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeReports', () => {
  test('one suite: results.json, junit.xml and report.html in the directory, created if missing', async () => {
    const target = join(dir, 'nested', 'out');
    const written = await writeReports(target, [mixedResult()], { strict: false });
    expect((await readdir(target)).sort()).toEqual(['junit.xml', 'report.html', 'results.json']);
    expect(written.sort()).toEqual(['junit.xml', 'report.html', 'results.json'].map((f) => join(target, f)));
    expect(JSON.parse(await readFile(join(target, 'results.json'), 'utf8'))).toEqual(mixedResult());
  });

  test('several suites: a results.json per suite plus combined junit, html and summary', async () => {
    await writeReports(dir, [mixedResult('a'), mixedResult('b')], { strict: false });
    expect((await readdir(dir)).sort()).toEqual(['a', 'b', 'junit.xml', 'report.html', 'summary.json']);
    expect(JSON.parse(await readFile(join(dir, 'b', 'results.json'), 'utf8')).suite).toBe('b');
    expect(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')).summary.failed).toBe(2);
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)).toHaveLength(2);
  });

  test('a suite name cannot escape the report directory', () => {
    const files = reportFiles([mixedResult('../up'), mixedResult('..')], { strict: false });
    for (const path of files.keys()) {
      expect(path.split(sep).every((segment) => !segment.startsWith('.'))).toBe(true);
    }
    expect([...files.keys()].filter((p) => p.endsWith('results.json'))).toHaveLength(2);
  });

  test("a suite named like a top-level file, or like another in another letter case, gets a folder of its own (a merged results.json's names are anyone's)", async () => {
    const results = [
      mixedResult('junit.xml'),
      mixedResult('Agent'),
      mixedResult('agent'),
      mixedResult('REPORT.HTML'),
    ];
    const written = await writeReports(dir, results, { strict: false });
    const folders = written.filter((p) => p.endsWith('results.json')).map((p) => p.split(sep).at(-2)!);
    expect(folders).toEqual(['junit.xml-2', 'Agent', 'agent-2', 'REPORT.HTML-2']);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('<!DOCTYPE html>');
  });

  test('an unwritable directory is a WC_REPORT_WRITE error', async () => {
    const file = join(dir, 'file');
    await writeFile(file, 'x');
    const error = await writeReports(join(file, 'sub'), [mixedResult()], { strict: false }).catch((e) => e);
    expect(error).toBeInstanceOf(WirecheckError);
    expect(error.code).toBe('WC_REPORT_WRITE');
  });
});
