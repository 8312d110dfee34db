import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { HARNESS_ERRORS, UsageError, WirecheckError } from '../../src/harness/errors.js';

async function documentedErrorCodes(): Promise<[string, { exitCode: number; summary: string }][]> {
  const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const start = doc.indexOf('\n## Error codes');
  expect(start).toBeGreaterThan(0);
  const section = doc.slice(start + 1).split(/\n## /)[0] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `WC_'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  return rows.map(([, code = '', exit = '', summary = '']) => [
    code.replaceAll('`', ''),
    { exitCode: Number(exit), summary },
  ]);
}

describe('harness error codes', () => {
  test('docs/cli.md lists exactly the registry: same codes, order, exit status and meaning', async () => {
    expect(await documentedErrorCodes()).toEqual(Object.entries(HARNESS_ERRORS));
  });

  test('an error carries its code and the exit status of the registry', () => {
    const e = new WirecheckError('WC_REPORT_WRITE', 'disk full');
    expect([e.code, e.exitCode, e.message]).toEqual(['WC_REPORT_WRITE', 2, 'disk full']);
    const usage = new UsageError('needs --base-url');
    expect(usage).toBeInstanceOf(WirecheckError);
    expect([usage.code, usage.exitCode, usage.name]).toEqual(['WC_USAGE', 2, 'UsageError']);
  });

  test('every code is WC_ and upper case, with a sentence for the docs', () => {
    for (const [code, { summary }] of Object.entries(HARNESS_ERRORS)) {
      expect(code).toMatch(/^WC_[A-Z_]+$/);
      expect(summary).toMatch(/^[`A-Z].*\.$/);
      expect(summary).not.toContain('|');
    }
  });
});
