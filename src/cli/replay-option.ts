import { FixtureFormatError } from '../fixtures/errors.js';
import type { PropertyReplay } from '../harness/check.js';
import { readCounterexample, replaySettings } from '../harness/counterexamples.js';
import { WirecheckError } from '../harness/errors.js';
import type { SuiteEntry } from '../suites/registry.js';
import type { RunOptionsInput } from './options.js';

/**
 * `test <suite> --replay FILE`: the run options that select the fixture's check with its
 * seed, runs and tier, the case checkProperty runs, and a line saying what is replayed.
 */
export async function loadReplay(
  entry: SuiteEntry,
  file: string,
  given: RunOptionsInput,
): Promise<{ run: RunOptionsInput; case: PropertyReplay; line: string }> {
  let fixture: Awaited<ReturnType<typeof readCounterexample>>;
  try {
    fixture = await readCounterexample(file);
  } catch (e) {
    if (e instanceof FixtureFormatError) throw new WirecheckError('WC_FIXTURE_READ', e.message, { cause: e });
    throw e;
  }
  const { replay, ...fixed } = replaySettings(fixture, file, entry.suite.name, given);
  return {
    run: { ...given, ...fixed },
    case: replay,
    line: `replaying the counterexample of ${fixture.check} from ${file} (fast-check seed ${replay.seed}, path "${replay.path}")`,
  };
}
