import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseFixtureText } from '../../src/fixtures/index.js';
import { runCommand } from '../../src/harness/run-command.js';
import { shellQuote } from '../../src/harness/run-suite.js';

const ROOT = resolve(import.meta.dirname, '../..');
const WIRECHECK = `${shellQuote(process.execPath)} ${shellQuote(join(ROOT, 'bin/wirecheck.js'))}`;
const CHECK = 'runner.truncation.generated';

let dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
});

function runner(name: string): string {
  return `node ${shellQuote(join(ROOT, 'test/suites/runner/runners', `${name}.mjs`))}`;
}

/** A command line as a user runs it (`sh -c`, own process group, killed on expiry). */
function shell(line: string) {
  return runCommand(line, { env: { ...process.env, NO_COLOR: '1' }, timeoutMs: 60_000, cwd: ROOT });
}

describe('Counterexamples end to end: a runner that cuts by characters fails the generated truncation property', () => {
  test('--report-dir saves counterexamples/<id>.json and the printed replay command reproduces exactly that failure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cx-e2e-'));
    dirs.push(dir);
    const first = await shell(
      `${WIRECHECK} test runner --runner ${shellQuote(runner('cut-by-characters'))} --only ${CHECK} --seed 7 --runs 3 --report-dir ${shellQuote(dir)}`,
    );
    expect(first.exitCode, `${first.stdout}\n${first.stderr}`).toBe(1);
    const file = join(dir, 'counterexamples', `${CHECK}.json`);
    const fixture = parseFixtureText(await readFile(file, 'utf8'), file);
    if (fixture.kind !== 'counterexample') throw new Error(`not a counterexample: ${fixture.kind}`);
    // The saved value is the case the failure names: one runner's commands, one of which failed.
    const saved = fixture.counterexample as { stdout: string; stderr: string }[];
    expect(saved).toHaveLength(3);
    const named = saved.map(
      (o, i) =>
        `command ${i + 1} of 3, output of ${Buffer.byteLength(o.stdout)} + ${Buffer.byteLength(o.stderr)} bytes`,
    );
    expect(
      named.some((n) => fixture.message.includes(n)),
      fixture.message,
    ).toBe(true);
    const line = /^ +replay: +npx wirecheck (.*)$/m.exec(first.stdout)?.[1];
    expect(line).toBe(fixture.replay.replace(/^npx wirecheck /, ''));

    const again = await shell(`${WIRECHECK} ${line}`);
    const context = `first run:\n${first.stdout}\nreplay:\n${again.stdout}\n${again.stderr}`;
    expect(again.exitCode, context).toBe(1);
    expect(again.stdout, context).toContain(`✗ FAIL  ${CHECK}`);
    expect(again.stdout, context).toContain(
      `(replayed the saved counterexample; fast-check seed 7, path "${fixture.fastCheck.path}"`,
    );
    // The same verdict as the search that found it: the expected/actual lines match.
    const verdict = (text: string) => text.split('\n').filter((l) => /^ +(expected|actual): /.test(l));
    expect(verdict(again.stdout), context).toEqual(verdict(first.stdout));

    const fixed = await shell(`${WIRECHECK} ${line!.replace('cut-by-characters.mjs', 'conforming.mjs')}`);
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain(`✓ PASS  ${CHECK}`);
  }, 90_000);

  test('a counterexample saved when the case was one output (not a list) still replays: it fails the broken runner and passes the conforming one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cx-legacy-'));
    dirs.push(dir);
    const file = join(dir, `${CHECK}.json`);
    // 2-byte characters past the limit: cut at 65536 characters, more than 65536 bytes are kept.
    const output = { stdout: `x${'é'.repeat(40_000)}`, stderr: '' };
    const fixture = (name: string) => ({
      format: 'wirecheck-fixture',
      version: 1,
      kind: 'counterexample',
      suite: 'runner',
      check: CHECK,
      seed: 7,
      runs: 3,
      full: false,
      fastCheck: { seed: 7, path: '0', property: 0 },
      counterexample: output,
      target: runner(name),
      targetArgs: ['--runner', runner(name)],
      replay: `npx wirecheck test runner --runner ${shellQuote(runner(name))} --replay ${file}`,
      message: 'output of 80001 + 0 bytes: more than 65536 bytes of output were kept',
    });
    await writeFile(file, JSON.stringify(fixture('cut-by-characters')));
    const broken = await shell(
      `${WIRECHECK} test runner --runner ${shellQuote(runner('cut-by-characters'))} --replay ${shellQuote(file)}`,
    );
    expect(broken.exitCode, `${broken.stdout}\n${broken.stderr}`).toBe(1);
    expect(broken.stdout).toContain(`✗ FAIL  ${CHECK}`);
    expect(broken.stdout).toContain('command 1 of 1, output of 80001 + 0 bytes');
    expect(broken.stdout).toContain(
      'replayed the saved counterexample (seed and path now generate another value)',
    );

    await writeFile(file, JSON.stringify(fixture('conforming')));
    const fixed = await shell(
      `${WIRECHECK} test runner --runner ${shellQuote(runner('conforming'))} --replay ${shellQuote(file)}`,
    );
    expect(fixed.exitCode, `${fixed.stdout}\n${fixed.stderr}`).toBe(0);
    expect(fixed.stdout).toContain(`✓ PASS  ${CHECK}`);
  }, 90_000);
});
