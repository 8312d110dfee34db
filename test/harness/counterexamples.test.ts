import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { formatFixture, parseFixtureText, validateFixture } from '../../src/fixtures/index.js';
import { CheckFailure, type Suite } from '../../src/harness/check.js';
import {
  counterexampleFile,
  readCounterexample,
  replayLine,
  replayOf,
} from '../../src/harness/counterexamples.js';
import { checkProperty } from '../../src/harness/property.js';
import { runSuite } from '../../src/harness/run-suite.js';

let dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cx-'));
  dirs.push(dir);
  return dir;
}

interface Target {
  fixed: boolean;
}

/**
 * One property check and one plain failing check. The property fails on a broken target for
 * lists longer than 3 holding a 7; `seen` collects every list the property ran on.
 */
function suiteFor(seen: number[][]): Suite<Target, Target> {
  return {
    name: 'prop',
    description: 'a property suite',
    checks: [
      {
        id: 'prop.lists.no-seven',
        clause: 'Events rule 1',
        description: 'no 7 in a long list',
        level: 'must',
        basis: 'spec',
        rule: 'A rule of a test suite, stated for every target.',
        async run(ctx, env) {
          await checkProperty(env, fc.array(fc.integer({ min: 0, max: 9 })), async (list) => {
            seen.push(list);
            if (!ctx.fixed && list.length > 3 && list.includes(7)) {
              throw new CheckFailure('a long list with a 7', 'no 7', '7');
            }
          });
        },
      },
      {
        id: 'prop.plain.fails',
        clause: 'Events rule 2',
        description: 'fails without a property',
        level: 'must',
        basis: 'spec',
        rule: 'A rule of a test suite, stated for every target.',
        async run() {
          throw new CheckFailure('plain failure');
        },
      },
    ],
    describeTarget: (t) => (t.fixed ? 'fixed target' : 'broken target'),
    targetArgs: (t) => ['--fake-url', t.fixed ? 'http://fixed' : 'http://broken'],
    async open(target) {
      return { ...target, close: async () => {} };
    },
  };
}

describe('Counterexamples: a failed property-based check saves its shrunk counterexample as a fixture', () => {
  test('with a report directory: <dir>/counterexamples/<check-id>.json and a replay line on the result', async () => {
    const dir = await tempDir();
    const result = await runSuite(suiteFor([]), { fixed: false }, { seed: 99, runs: 200, reportDir: dir });
    const [property, plain] = result.checks;
    const file = join(dir, 'counterexamples', 'prop.lists.no-seven.json');
    expect(property?.status).toBe('fail');
    expect(property?.counterexample).toEqual({
      file,
      replay: `npx wirecheck test prop --fake-url http://broken --replay ${file}`,
    });
    expect(plain?.counterexample).toBeUndefined();
    expect(await readdir(join(dir, 'counterexamples'))).toEqual(['prop.lists.no-seven.json']);
    const fixture = await readCounterexample(file);
    expect(fixture).toMatchObject({
      kind: 'counterexample',
      suite: 'prop',
      check: 'prop.lists.no-seven',
      seed: 99,
      runs: 200,
      full: false,
      targetArgs: ['--fake-url', 'http://broken'],
      target: 'broken target',
      counterexample: [0, 0, 7, 0],
      replay: property?.counterexample?.replay,
      message: property?.message,
    });
    expect(fixture.fastCheck.seed).toBe(99);
  });

  test('the file is pretty JSON, a valid fixture of kind counterexample, written as formatFixture writes it', async () => {
    const dir = await tempDir();
    await runSuite(suiteFor([]), { fixed: false }, { seed: 99, runs: 200, reportDir: dir });
    const text = await readFile(counterexampleFile(dir, 'prop.lists.no-seven'), 'utf8');
    expect(text).toMatch(
      /^\{\n {2}"format": "wirecheck-fixture",\n {2}"version": 1,\n {2}"kind": "counterexample",/,
    );
    expect(text.endsWith('}\n')).toBe(true);
    const fixture = parseFixtureText(text, 'f.json');
    expect(formatFixture(fixture)).toBe(text);
    const validation = validateFixture(fixture);
    expect(validation.ok).toBe(true);
    expect(validation.summary).toContain('counterexample of prop.lists.no-seven');
  });

  test('without a report directory nothing is written and the reproduce line still carries the seed', async () => {
    const result = await runSuite(suiteFor([]), { fixed: false }, { seed: 99, runs: 200 });
    const property = result.checks[0];
    expect(property?.counterexample).toBeUndefined();
    expect(property?.message).toMatch(/fast-check seed 99, path "[\d:]+"; counterexample \[0,0,7,0\]/);
    expect(property?.reproduce).toContain('--seed 99 --only prop.lists.no-seven');
  });

  test('the replay runs exactly the saved case once, fails the same way, and passes once the target is fixed', async () => {
    const dir = await tempDir();
    await runSuite(suiteFor([]), { fixed: false }, { seed: 99, runs: 200, reportDir: dir });
    const fixture = await readCounterexample(counterexampleFile(dir, 'prop.lists.no-seven'));
    const seen: number[][] = [];
    const options = {
      seed: fixture.seed,
      runs: fixture.runs,
      only: [fixture.check],
      replay: replayOf(fixture),
    };
    const broken = await runSuite(suiteFor(seen), { fixed: false }, options);
    expect(broken.checks.map((c) => [c.id, c.status])).toEqual([['prop.lists.no-seven', 'fail']]);
    expect(seen).toEqual([fixture.counterexample]);
    expect(broken.checks[0]?.message).toMatch(/^a long list with a 7 \(replayed the saved counterexample;/);
    seen.length = 0;
    const fixed = await runSuite(suiteFor(seen), { fixed: true }, options);
    expect(fixed.checks.map((c) => c.status)).toEqual(['pass']);
    expect(seen).toEqual([fixture.counterexample]);
  });

  test('the replay line quotes what the shell would split', () => {
    expect(replayLine('runner', ['--runner', 'node my runner.mjs'], 'out dir/counterexamples/x.json')).toBe(
      "npx wirecheck test runner --runner 'node my runner.mjs' --replay 'out dir/counterexamples/x.json'",
    );
  });

  test('a fixture must hold exactly one of counterexample and counterexampleText', async () => {
    const dir = await tempDir();
    await runSuite(suiteFor([]), { fixed: false }, { seed: 99, runs: 200, reportDir: dir });
    const text = await readFile(counterexampleFile(dir, 'prop.lists.no-seven'), 'utf8');
    const both = { ...JSON.parse(text), counterexampleText: '[0,0,7,0]' };
    expect(() => parseFixtureText(JSON.stringify(both), 'f.json')).toThrow(/exactly one of counterexample/);
    const { counterexample: _, ...neither } = JSON.parse(text);
    expect(() => parseFixtureText(JSON.stringify(neither), 'f.json')).toThrow(
      /exactly one of counterexample/,
    );
  });
});
