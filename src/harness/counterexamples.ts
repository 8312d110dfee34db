import { readFileSync } from 'node:fs';
import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CounterexampleFixture, formatCounterexample } from '../fixtures/counterexample.js';
import { FixtureFormatError } from '../fixtures/errors.js';
import { FIXTURE_FORMAT, FIXTURE_VERSION } from '../fixtures/fixture-format.js';
import { parseFixtureText } from '../fixtures/format.js';
import { VERSION } from '../version.js';
import type { PropertyReplay } from './check.js';
import { UsageError, WirecheckError } from './errors.js';
import type { PropertyCounterexample } from './property.js';
import { shellQuote } from './run-suite.js';

/** The directory of a report directory where counterexamples go. */
export const COUNTEREXAMPLES_DIR = 'counterexamples';

/** `<reportDir>/counterexamples/<check-id>.json` (the id made one safe path segment). */
export function counterexampleFile(reportDir: string, checkId: string): string {
  const name = checkId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_') || 'check';
  return join(reportDir, COUNTEREXAMPLES_DIR, `${name}.json`);
}

/** The one-line command that runs exactly the saved case again. */
export function replayLine(suite: string, targetArgs: readonly string[], file: string): string {
  return ['npx', 'wirecheck', 'test', suite, ...targetArgs, '--replay', file].map(shellQuote).join(' ');
}

/** What the harness knows of a failed property when it saves it. */
export interface CounterexampleSource {
  readonly suite: string;
  readonly check: string;
  readonly clause?: string;
  readonly seed: number;
  readonly runs: number;
  readonly full: boolean;
  readonly target: string;
  readonly targetArgs: readonly string[];
  readonly message: string;
  readonly property: PropertyCounterexample;
}

/** The fixture of a failed property (pure: `file` is where it will be, for the replay line). */
export function counterexampleFixture(
  source: CounterexampleSource,
  file: string,
  recordedAt: Date = new Date(),
): CounterexampleFixture {
  const { property } = source;
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    kind: 'counterexample',
    suite: source.suite,
    check: source.check,
    ...(source.clause === undefined ? {} : { clause: source.clause }),
    seed: source.seed,
    runs: source.runs,
    full: source.full,
    fastCheck: { ...property.fastCheck },
    ...(property.json === undefined
      ? { counterexampleText: property.text }
      : { counterexample: property.json.value }),
    target: source.target,
    targetArgs: [...source.targetArgs],
    replay: replayLine(source.suite, source.targetArgs, file),
    message: source.message,
    recordedAt: recordedAt.toISOString(),
    wirecheck: VERSION,
  };
}

/** Save a failed property's case under `<reportDir>/counterexamples/`; returns the file and the replay line. */
export async function writeCounterexample(
  reportDir: string,
  source: CounterexampleSource,
): Promise<{ file: string; replay: string }> {
  const file = counterexampleFile(reportDir, source.check);
  const fixture = counterexampleFixture(source, file);
  try {
    await mkdir(dirname(file), { recursive: true });
    // Written aside and renamed into place: never a cut file under the final name. Whatever else
    // stands at that name (a FIFO would block a write for ever) is neither opened nor replaced.
    const there = await lstat(file).catch(() => undefined);
    if (there !== undefined && !there.isFile())
      throw new Error('something other than a regular file is there');
    const temp = `${file}.tmp-${process.pid}`;
    await rm(temp, { force: true });
    await writeFile(temp, formatCounterexample(fixture), { encoding: 'utf8', flag: 'wx' });
    await rename(temp, file);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new WirecheckError('WC_REPORT_WRITE', `cannot write counterexample ${file}: ${reason}`, {
      cause: e,
    });
  }
  return { file, replay: fixture.replay };
}

function asCounterexample(text: string, file: string): CounterexampleFixture {
  const fixture = parseFixtureText(text, file);
  if (fixture.kind !== 'counterexample') {
    throw new FixtureFormatError(
      file,
      'kind',
      `--replay takes a counterexample fixture, not ${fixture.kind}`,
    );
  }
  return CounterexampleFixture.parse(fixture);
}

/** Read a counterexample fixture (FixtureFormatError when the file is not one). */
export async function readCounterexample(file: string): Promise<CounterexampleFixture> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new FixtureFormatError(file, '', `cannot read the file: ${(e as Error).message}`);
  }
  return asCounterexample(text, file);
}

/** As readCounterexample, synchronously (for test files that choose their tests while loading). */
export function readCounterexampleSync(file: string): CounterexampleFixture {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new FixtureFormatError(file, '', `cannot read the file: ${(e as Error).message}`);
  }
  return asCounterexample(text, file);
}

/** The case a fixture saves, as checkProperty replays it. */
export function replayOf(fixture: CounterexampleFixture): PropertyReplay {
  return {
    seed: fixture.fastCheck.seed,
    path: fixture.fastCheck.path,
    property: fixture.fastCheck.property,
    ...('counterexample' in fixture ? { value: { json: fixture.counterexample } } : {}),
  };
}

/** Run options a counterexample fixes; giving them too would run another case than the saved one. */
export const FIXED_BY_COUNTEREXAMPLE = ['only', 'seed', 'runs', 'full', 'shard'] as const;

/**
 * The settings that replay a fixture against suite `suite`: its check, seed, runs and tier,
 * and the case. A UsageError when the fixture belongs to another suite or when `given`
 * sets what the fixture fixes.
 */
export function replaySettings(
  fixture: CounterexampleFixture,
  file: string,
  suite: string,
  given: Partial<Record<(typeof FIXED_BY_COUNTEREXAMPLE)[number], unknown>> = {},
): { only: string[]; seed: number; runs: number; full: boolean; replay: PropertyReplay } {
  const clashing = FIXED_BY_COUNTEREXAMPLE.filter((key) => given[key] !== undefined);
  if (clashing.length > 0) {
    throw new UsageError(
      `--replay runs the saved case with its own check, seed, runs and tier: leave out ${clashing.map((k) => `--${k}`).join(', ')}`,
    );
  }
  if (fixture.suite !== suite) {
    throw new UsageError(
      `${file} is a counterexample of suite ${fixture.suite} (check ${fixture.check}), not of suite ${suite}`,
    );
  }
  return {
    only: [fixture.check],
    seed: fixture.seed,
    runs: fixture.runs,
    full: fixture.full,
    replay: replayOf(fixture),
  };
}
