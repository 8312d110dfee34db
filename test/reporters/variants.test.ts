import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../src/harness/results.js';
import { formatConsoleReport } from '../../src/reporters/console.js';
import { reportFiles } from '../../src/reporters/write.js';
import { check, suiteResult } from './fixtures.js';

/** The tool-server suite's three runs in one `wirecheck all`, and another suite. */
function allRun(): SuiteResult[] {
  const run = (variant?: string) =>
    suiteResult('tool-server', [check({ id: 'tool-server.a', status: 'pass' })], {
      ...(variant === undefined ? {} : { variant }),
    });
  return [
    run(),
    run('stdio'),
    run('streamable-http'),
    suiteResult('tool-client', [check({ id: 'tool-client.a', status: 'pass' })]),
  ];
}

describe('reports of a suite that one plan ran more than once', () => {
  test('each run has its own folder, named by its variant, and its results.json keeps the variant', () => {
    const files = reportFiles(allRun(), { strict: false });
    const folders = [...files.keys()].filter((p) => p.endsWith('results.json'));
    expect(folders).toEqual([
      'tool-server/results.json',
      'tool-server-stdio/results.json',
      'tool-server-streamable-http/results.json',
      'tool-client/results.json',
    ]);
    const variantOf = (path: string) => (JSON.parse(files.get(path) ?? '{}') as SuiteResult).variant;
    expect(folders.map(variantOf)).toEqual([undefined, 'stdio', 'streamable-http', undefined]);
    expect(JSON.parse(files.get('summary.json') ?? '{}').suites.map((s: SuiteResult) => s.variant)).toEqual([
      undefined,
      'stdio',
      'streamable-http',
      undefined,
    ]);
  });

  test('junit.xml has a testsuite per run, and testcases of one run only under it', () => {
    const junit = reportFiles(allRun(), { strict: false }).get('junit.xml') ?? '';
    const suites = [...junit.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1]);
    expect(suites).toEqual([
      'tool-server',
      'tool-server (stdio)',
      'tool-server (streamable-http)',
      'tool-client',
    ]);
    const cases = [...junit.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map(
      (m) => `${m[1]}/${m[2]}`,
    );
    expect(new Set(cases).size).toBe(cases.length);
    expect(cases).toContain('tool-server (stdio)/tool-server.a');
  });

  test('report.html and the console name each run', () => {
    const results = allRun();
    const html = reportFiles(results, { strict: false }).get('report.html') ?? '';
    expect([...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1])).toEqual([
      'tool-server',
      'tool-server (stdio)',
      'tool-server (streamable-http)',
      'tool-client',
    ]);
    const console = formatConsoleReport(results, { color: false, strict: false });
    expect(console).toContain('suite tool-server (streamable-http): 1 passed');
    expect(console).toContain('tool-server (stdio) against http://127.0.0.1:9');
  });

  test('a suite run once keeps its plain name, and its results.json no variant', () => {
    const one = suiteResult('tool-server', [check({ id: 'tool-server.a', status: 'pass' })]);
    const files = reportFiles([one], { strict: false });
    expect('variant' in JSON.parse(files.get('results.json') ?? '{}')).toBe(false);
    expect(files.get('junit.xml')).toContain('<testsuite name="tool-server" ');
    expect(files.get('junit.xml')).toContain('<testcase classname="tool-server" name="tool-server.a"');
  });
});
