import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import type { DescribeSuiteOptions } from '../../src/testing/vitest.js';

/**
 * describeSuite's `signal`, `budgetMs` and `reportDir`, run in a vitest of their own
 * (fixtures/describe-options.fixture.ts): the tests they skip are the outcome looked at, and
 * must not be skipped tests of this run. A reporter writes each test's state, skip note and
 * errors, and each describe block's own errors (a failed beforeAll), as JSON lines.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = 'test/testing/fixtures/describe-options.fixture.ts';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'wirecheck-describe-options-'));
  // Plain objects and no imports: the config and the reporter are loaded from outside the repository.
  await writeFile(
    join(work, 'config.mjs'),
    `export default { test: { include: [${JSON.stringify(FIXTURE)}] } };\n`,
  );
  await writeFile(
    join(work, 'reporter.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      "const out = (line) => appendFileSync(process.env.WIRECHECK_FIXTURE_RESULTS, JSON.stringify(line).concat('\\n'));",
      'export default class {',
      '  onTestCaseResult(t) {',
      '    const r = t.result();',
      '    out({ test: t.name, state: r.state, note: r.note, errors: (r.errors ?? []).map((e) => e.message) });',
      '  }',
      '  onTestSuiteResult(s) {',
      '    out({ block: s.name, errors: s.errors().map((e) => e.message) });',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

interface Line {
  readonly test?: string;
  readonly block?: string;
  readonly state?: string;
  readonly note?: string;
  readonly errors: string[];
}

async function runFixture(
  which: string,
): Promise<{ code: number | null; lines: Line[]; log: string[]; reportDir: string }> {
  const results = join(work, `${which}.jsonl`);
  const log = join(work, `${which}.log`);
  const reportDir = join(work, `${which}-reports`);
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const code = await new Promise<number | null>((done) => {
    execFile(
      process.execPath,
      [
        vitest,
        'run',
        '--root',
        ROOT,
        '--config',
        join(work, 'config.mjs'),
        '--reporter',
        join(work, 'reporter.mjs'),
      ],
      {
        cwd: ROOT,
        timeout: 60_000,
        killSignal: 'SIGKILL',
        env: {
          ...process.env,
          WIRECHECK_FIXTURE_CASE: which,
          WIRECHECK_FIXTURE_RESULTS: results,
          WIRECHECK_FIXTURE_LOG: log,
          WIRECHECK_FIXTURE_REPORT_DIR: reportDir,
        },
      },
      (error) => done(error === null ? 0 : typeof error.code === 'number' ? error.code : null),
    );
  });
  const read = async (file: string) =>
    existsSync(file) ? (await readFile(file, 'utf8')).split('\n').filter(Boolean) : [];
  return {
    code,
    lines: (await read(results)).map((l) => JSON.parse(l) as Line),
    log: await read(log),
    reportDir,
  };
}

const tests = (lines: Line[]) =>
  lines.filter((l) => l.test !== undefined).map(({ test, state, note }) => ({ test, state, note }));

describe('describeSuite honours the run options it accepts', () => {
  test('an aborted signal: the suite is not opened and every test skips as not run', async () => {
    const { lines, log } = await runFixture('signal');
    expect(tests(lines)).toEqual([
      { test: 'fixture.one', state: 'skipped', note: 'not run: the run was stopped' },
      { test: 'fixture.two', state: 'skipped', note: 'not run: the run was stopped' },
    ]);
    expect(log).toEqual([]);
  }, 90_000);

  test('budgetMs used up by a check: it fails naming the budget, the checks after it skip as not run', async () => {
    const { code, lines, log } = await runFixture('budget-checks');
    expect(code).not.toBe(0);
    const [slow, after] = lines.filter((l) => l.test !== undefined);
    expect(slow?.state).toBe('failed');
    expect(slow?.errors.join('\n')).toContain(
      "the suite's time budget of 300 ms was used up while this check ran",
    );
    expect(after).toMatchObject({
      test: 'fixture.after',
      state: 'skipped',
      note: "not run: the suite's time budget of 300 ms was used up",
    });
    expect(log).not.toContain('ran fixture.after');
  }, 90_000);

  test('budgetMs used up while opening: the beforeAll fails naming the budget', async () => {
    const { code, lines } = await runFixture('budget-open');
    expect(code).not.toBe(0);
    const errors = lines.flatMap((l) => (l.block === undefined ? [] : l.errors));
    expect(errors.join('\n')).toContain(
      'suite fixture did not finish opening (starting its servers, reaching the target) within its time budget of 50 ms (budgetMs)',
    );
    expect(tests(lines).map((t) => t.state)).not.toContain('passed');
  }, 90_000);

  test("reportDir: a failed property's counterexample is saved there and named in the failure", async () => {
    const { lines, reportDir } = await runFixture('report-dir');
    const file = join(reportDir, 'counterexamples', 'fixture.property.json');
    const [failure] = lines.filter((l) => l.test === 'fixture.property');
    expect(failure?.state).toBe('failed');
    expect(failure?.errors.join('\n')).toContain(`counterexample: ${file}`);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { check: string; seed: number };
    expect(saved).toMatchObject({ check: 'fixture.property', seed: 1 });
  }, 90_000);
});

describe('the options that mean nothing under vitest are not accepted', () => {
  test('jobs, slots and the progress callbacks are type errors', () => {
    // @ts-expect-error vitest schedules the tests: no jobs
    const jobs: DescribeSuiteOptions = { jobs: 2 };
    // @ts-expect-error vitest reports the tests: no onBegin
    const onBegin: DescribeSuiteOptions = { onBegin: () => {} };
    // @ts-expect-error no shared job slots
    const slots: DescribeSuiteOptions = { slots: undefined };
    // @ts-expect-error no onDispatched
    const onDispatched: DescribeSuiteOptions = { onDispatched: () => {} };
    // @ts-expect-error no onResult
    const onResult: DescribeSuiteOptions = { onResult: () => {} };
    expect([jobs, onBegin, slots, onDispatched, onResult]).toHaveLength(5);
    expectTypeOf<DescribeSuiteOptions>().toHaveProperty('signal');
    expectTypeOf<DescribeSuiteOptions>().toHaveProperty('budgetMs');
    expectTypeOf<DescribeSuiteOptions>().toHaveProperty('reportDir');
  });
});
