import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { CHECKS_DOC_PATH, formatChecksMarkdown } from '../../src/docs/checks.js';
import type { Check, Suite } from '../../src/harness/check.js';
import { SUITES, type SuiteEntry } from '../../src/suites/registry.js';

function entry(name: string, checks: Partial<Check<unknown>>[]): SuiteEntry {
  const suite = {
    name,
    description: `the ${name} suite`,
    checks: checks.map((c) => ({ clause: 'c', description: 'd', level: 'must', run: async () => {}, ...c })),
  } as unknown as Suite<unknown, unknown>;
  return { suite, targetOptions: [], targetFromOptions: () => ({}) };
}

describe('docs/checks.md', () => {
  test('is generated from the registry: stale means someone changed a check without npm run docs:checks', async () => {
    const onDisk = await readFile(new URL(`../../${CHECKS_DOC_PATH}`, import.meta.url), 'utf8');
    if (onDisk !== formatChecksMarkdown(SUITES)) {
      expect.fail('docs/checks.md is stale: run npm run docs:checks');
    }
  });

  test('every registered check appears once, with its level and clause', async () => {
    const doc = formatChecksMarkdown(SUITES);
    for (const { suite } of SUITES) {
      expect(doc).toContain(`## ${suite.name}\n`);
      for (const c of suite.checks) expect(doc.split(`| \`${c.id}\` | ${c.level} |`)).toHaveLength(2);
    }
  });

  test('suites sort by name and checks by id, whatever the registry order', () => {
    const a = entry('b-suite', [{ id: 'b.z' }, { id: 'b.a', tier: 'full', level: 'should' }]);
    const b = entry('a-suite', [{ id: 'a.x' }]);
    const doc = formatChecksMarkdown([a, b]);
    expect(doc).toBe(formatChecksMarkdown([b, a]));
    expect(doc.indexOf('## a-suite')).toBeLessThan(doc.indexOf('## b-suite'));
    expect(doc.indexOf('`b.a`')).toBeLessThan(doc.indexOf('`b.z`'));
    expect(doc).toContain('| `b.a` | should |  | full | c |  | d |');
    expect(doc).toContain('| `b.z` | must |  | quick | c |  | d |');
  });

  test("each check's basis and rule stand beside its clause", () => {
    const doc = formatChecksMarkdown([
      entry('s', [
        {
          id: 's.stdout',
          level: 'must',
          basis: 'spec',
          clause: 'Tool server, stdio transport',
          rule: 'The spec: standard output carries nothing but protocol messages | every stdio server.',
        },
      ]),
    ]);
    expect(doc).toContain('| id | level | basis | tier | clause | rule | description |');
    expect(doc).toContain(
      '| `s.stdout` | must | spec | quick | Tool server, stdio transport | The spec: standard output carries nothing but protocol messages \\| every stdio server. | d |',
    );
    expect(doc).toContain('[levels.md](levels.md)');
  });

  test('a pipe or a line break in a clause cannot break the table', () => {
    const doc = formatChecksMarkdown([entry('s', [{ id: 's.x', clause: 'a | b\nc', description: 'x\\|y' }])]);
    expect(doc).toContain('| `s.x` | must |  | quick | a \\| b c |  | x\\\\\\|y |');
  });
});
