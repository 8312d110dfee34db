import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { CheckFailure, type Suite } from '../../src/harness/check.js';
import { checkProperty } from '../../src/harness/property.js';
import { SuiteResult } from '../../src/harness/results.js';
import { cli, type FakeTarget, fakeEntry, registerAll } from './fake-suites.js';

// `all` runs a suite once per reference (the tool server per transport) with the same check
// ids: each run's counterexample must be its own file, and its replay line must name it.

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const ID = 'alpha.strings.short';

/** Suite `alpha`: its property fails for any string over 5 characters, on every target. */
function alpha(): Suite<FakeTarget, object> {
  return {
    name: 'alpha',
    description: 'fake property suite',
    checks: [
      {
        id: ID,
        clause: 'Events rule 3',
        description: 'strings stay short',
        level: 'must',
        basis: 'spec',
        rule: 'A rule of a test suite, stated for every target.',
        async run(_ctx, env) {
          await checkProperty(env, fc.string({ minLength: 1 }), async (s) => {
            if (s.length > 5) throw new CheckFailure('string too long', '<= 5', String(s.length));
          });
        },
      },
    ],
    describeTarget: (t) => t.url,
    targetArgs: (t) => ['--fake-url', t.url],
    async open() {
      return { close: async () => {} };
    },
  };
}

describe('wirecheck all --report-dir: a suite run per reference', () => {
  test('each run saves its counterexample in its own file, which its replay line names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cx-variants-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const other = (label: string) => ({
      label,
      start: async () => ({ target: { url: `ref://alpha-${label}` }, close: async () => {} }),
    });
    cleanup.push(
      registerAll({
        ...fakeEntry(alpha(), { url: 'ref://alpha', events: [] }),
        otherReferences: [other('stdio'), other('streamable http')],
      }),
    );
    const run = await cli(['all', '--seed', '5', '--jobs', '1', '--report-dir', dir]);
    expect(run.code, run.stderr).toBe(1);
    const runs = [
      ['alpha', 'ref://alpha'],
      ['alpha-stdio', 'ref://alpha-stdio'],
      ['alpha-streamable-http', 'ref://alpha-streamable http'],
    ] as const;
    const files = new Set<string>();
    for (const [folder, url] of runs) {
      const result = SuiteResult.parse(JSON.parse(await readFile(join(dir, folder, 'results.json'), 'utf8')));
      const saved = result.checks[0]?.counterexample;
      expect(saved, folder).toBeDefined();
      files.add(saved?.file ?? '');
      expect(saved?.replay).toContain(`--replay ${saved?.file}`);
      const fixture = JSON.parse(await readFile(saved?.file ?? '', 'utf8'));
      expect(fixture.targetArgs).toEqual(['--fake-url', url]);
      expect(fixture.replay).toBe(saved?.replay);
    }
    expect(files.size).toBe(3);
    // The run without a variant keeps the documented place.
    expect(files.has(join(dir, 'counterexamples', `${ID}.json`))).toBe(true);
  });
});
