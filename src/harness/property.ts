import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  type CheckEnv,
  CheckFailure,
  type CheckFailureOptions,
  CheckSkipped,
  HarnessBug,
  TargetGone,
} from './check.js';
import { jsonText } from './json-text.js';
import { isProgrammerError } from './programmer-error.js';
import type { Evidence } from './results.js';
import type { Slots } from './slots.js';

/** The shrunk case of a failed property, as the harness saves it (see src/harness/counterexamples.ts). */
export interface PropertyCounterexample {
  /** fast-check's seed and path of the case, and which checkProperty call of the check it belongs to. */
  readonly fastCheck: { readonly seed: number; readonly path: string; readonly property: number };
  /** The value exactly as JSON when JSON keeps it exactly. */
  readonly json?: { readonly value: unknown };
  /** fast-check's text of the value (always set; the only form of a value JSON would change). */
  readonly text: string;
  /** True when this was a replay of a saved case rather than a search. */
  readonly replayed: boolean;
}

/** A property's failure: the inner failure's verdict, plus the case that produced it. */
export class PropertyFailure extends CheckFailure {
  constructor(
    message: string,
    expected: string | undefined,
    actual: string | undefined,
    evidence: Evidence | undefined,
    readonly counterexample: PropertyCounterexample,
    /** For a labelled property: every failing label with its own message (the counterexample is the first's). */
    readonly labels?: ReadonlyArray<{ readonly label: string; readonly message: string }>,
    options: CheckFailureOptions = {},
  ) {
    super(message, expected, actual, evidence, options);
  }
}

/**
 * checkProperty calls so far per check run (keyed by the run's signal, which every copy of
 * its CheckEnv shares), so a replay knows which call of the check its case belongs to.
 */
const callsOfRun = new WeakMap<AbortSignal, number>();

function nextCallIndex(env: CheckEnv): number {
  const index = callsOfRun.get(env.signal) ?? 0;
  callsOfRun.set(env.signal, index + 1);
  return index;
}

/**
 * fast-check runs each checkProperty call of a check run was given (keyed by the run's
 * signal, as callsOfRun), so the result can say when a check capped them below `--runs`.
 */
const runsOfRun = new WeakMap<AbortSignal, number[]>();

function recordRuns(env: CheckEnv, runs: number): void {
  const seen = runsOfRun.get(env.signal);
  if (seen === undefined) runsOfRun.set(env.signal, [runs]);
  else seen.push(runs);
}

/**
 * For a property that stops judging at a wall-clock limit (its later cases return at once):
 * how many cases it judged, reported as its runs, so that the result says it judged fewer
 * than it was given (the console's "capped" note) instead of claiming them all.
 */
export function recordJudgedRuns(env: CheckEnv, judged: number): void {
  recordRuns(env, judged);
}

/**
 * The fast-check runs the properties of one check run were given: the smallest, when it
 * ran several; undefined when it ran none. Replays run one saved case and count as none.
 */
export function propertyRunsOf(signal: AbortSignal): number | undefined {
  const seen = runsOfRun.get(signal);
  return seen === undefined || seen.length === 0 ? undefined : Math.min(...seen);
}

/**
 * Run an async property with the run's seed and budget. A counterexample becomes a
 * PropertyFailure whose message carries fast-check's seed and path, so the reproduce line
 * (same --seed) replays exactly that case, and which hands the shrunk value to the harness
 * (saved with --report-dir). With `env.replay` only the saved case runs, once.
 */
export async function checkProperty<T>(
  env: CheckEnv,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  options: PropertyOptions<T> = {},
): Promise<void> {
  const property = nextCallIndex(env);
  if (env.replay === undefined) recordRuns(env, options.runs ?? env.runs);
  const { labelOf } = options;
  if (labelOf === undefined || env.replay !== undefined) {
    return searchOnce(env, property, arbitrary, predicate, options);
  }
  // A labelled property: after a failure, search again without the failing label's cases,
  // so one failing label cannot hide another (each label is its own rule of a set).
  const failures: Array<{ label: string; failure: PropertyFailure }> = [];
  for (let round = 0; round < MAX_FAILING_LABELS && !env.signal.aborted; round++) {
    const excluded = new Set(failures.map((f) => f.label));
    // Cases of found labels are skipped (fc.pre), not filtered out of the arbitrary: a filter that
    // rejects every value (each label of the set has failed) spins synchronously forever, while
    // skips are counted and end the search with "too many skipped values".
    const skip = (v: T): boolean => excluded.has(labelOf(v));
    try {
      await searchOnce(env, property, arbitrary, predicate, {
        ...options,
        ...(excluded.size === 0 ? {} : { skip }),
      });
      break;
    } catch (e) {
      if (!(e instanceof PropertyFailure) || e.counterexample.json === undefined) {
        // A bug of wirecheck stops the suite whatever the target's faults found before it.
        if (failures.length === 0 || e instanceof HarnessBug || isProgrammerError(e)) throw e;
        break;
      }
      const label = labelOf(e.counterexample.json.value as T);
      if (excluded.has(label)) break;
      failures.push({ label, failure: e });
    }
  }
  const first = failures[0];
  if (first === undefined) return;
  if (failures.length === 1) throw first.failure;
  const lines = failures.map((f) => `[${f.label}] ${f.failure.message}`);
  const causes = new Set(failures.map((f) => f.failure.sharedCause));
  const [cause] = causes;
  throw new PropertyFailure(
    `${failures.length} labels fail: ${lines.join('; ')}`,
    first.failure.expected,
    first.failure.actual,
    first.failure.evidence,
    first.failure.counterexample,
    failures.map((f) => ({ label: f.label, message: f.failure.message })),
    // One fault of the target behind every label is still one fault.
    causes.size === 1 && cause !== undefined ? { sharedCause: cause } : {},
  );
}

/** How many failing labels of one labelled property are searched for before the report is cut. */
const MAX_FAILING_LABELS = 20;

export interface PropertyOptions<T> {
  /** fast-check runs (default: the tier's). */
  runs?: number;
  /**
   * For a property over labelled cases (a set of rules, one label each): the label of a
   * generated value. Every failing label is then reported, not only the first.
   */
  labelOf?: (value: T) => string;
  /**
   * For a property whose every case costs a process start: after the first failure, at most
   * this many more values are really tried; later ones pass at once, so shrinking ends at the
   * smallest failure found by then. That value did fail, so the counterexample (its seed and
   * path) stays a real one. Counted from the failing case, whether the cases ran one at a time
   * or concurrently, so `--jobs` changes no counterexample.
   */
  maxShrinkRuns?: number;
}

/** How one search runs: the property's runs and shrink budget, and the values it skips (labels found already). */
type SearchOptions<T> = Pick<PropertyOptions<T>, 'runs' | 'maxShrinkRuns'> & {
  readonly skip?: (value: T) => boolean;
};

/** A predicate under a shrink budget, and the skip that ended its shrinking, if one did. */
interface Budgeted<T> {
  (value: T): Promise<void>;
  readonly skippedShrinking: () => CheckSkipped | undefined;
}

/**
 * The predicate with PropertyOptions.maxShrinkRuns applied; a fresh budget for each fast-check
 * search. `brokeRule`: a case already broke a rule (the concurrent search runs it again here).
 */
function withShrinkBudget<T>(
  predicate: (value: T) => Promise<void>,
  maxShrinkRuns: number | undefined,
  { brokeRule: already = false }: { brokeRule?: boolean } = {},
): Budgeted<T> {
  let failed = false;
  let brokeRule = already;
  let unjudged = false;
  let shrinkRuns = 0;
  let skippedShrinking: CheckSkipped | undefined;
  const budgeted = async (value: T) => {
    // A case that could not be judged (the target went away, was busy...) is the outcome:
    // shrinking it would only send the target more of what it could not take.
    if (unjudged) return;
    if (failed && maxShrinkRuns !== undefined && shrinkRuns++ >= maxShrinkRuns) return;
    try {
      await predicate(value);
    } catch (e) {
      if (brokeRule && e instanceof CheckSkipped) {
        // Met while shrinking a case that broke a rule (a 429 to the burst of smaller cases):
        // that failure stands as found; this value, and every later one, is left untried.
        unjudged = true;
        skippedShrinking = e;
        return;
      }
      failed = true;
      if (isUnjudged(e)) unjudged = true;
      else brokeRule = true;
      throw e;
    }
  };
  return Object.assign(budgeted, { skippedShrinking: () => skippedShrinking });
}

/** An error that says a case could not be judged, not that it broke a rule. */
function isUnjudged(error: unknown): error is TargetGone | CheckSkipped | HarnessBug {
  // A bug of wirecheck met in a case is no counterexample of the target's: nothing to shrink.
  return (
    error instanceof TargetGone ||
    error instanceof CheckSkipped ||
    error instanceof HarnessBug ||
    isProgrammerError(error)
  );
}

async function searchOnce<T>(
  env: CheckEnv,
  property: number,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  search: SearchOptions<T>,
): Promise<void> {
  const { runs, skip } = search;
  const replay = env.replay;
  if (replay !== undefined && replay.property !== property) return;
  // A search that skips values (a labelled property's rounds after the first) runs one case at a time:
  // fast-check draws more values for the skipped ones, which a sample drawn ahead would not.
  if (replay === undefined && env.slots !== undefined && skip === undefined) {
    return searchConcurrently(env, env.slots, property, arbitrary, predicate, {
      ...search,
      runs: runs ?? env.runs,
    });
  }
  const budgeted = withShrinkBudget(predicate, search.maxShrinkRuns);
  let substituted = false;
  let replayed = false;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (generated) => {
      if (env.signal.aborted) return;
      fc.pre(skip === undefined || !skip(generated));
      if (replay !== undefined) {
        // With a path, fast-check goes on to the case's siblings after it passes: only the case runs.
        if (replayed) return;
        replayed = true;
      }
      let value = generated;
      if (replay?.value !== undefined && !sameAsJson(generated, replay.value.json)) {
        // The generator changed since the case was saved: the saved value is the case.
        value = replay.value.json as T;
        substituted = true;
      }
      await budgeted(value);
    }),
    replay === undefined
      ? { seed: env.seed, numRuns: runs ?? env.runs }
      : { seed: replay.seed, path: replay.path, endOnFailure: true, numRuns: 1 },
  );
  if (!details.failed) return;
  if (!('errorInstance' in details)) {
    throw new CheckFailure('property could not run: interrupted or too many skipped values');
  }
  const how =
    replay === undefined
      ? `property failed after ${details.numRuns} runs, shrunk ${details.numShrinks} times`
      : substituted
        ? 'replayed the saved counterexample (seed and path now generate another value)'
        : 'replayed the saved counterexample';
  throw failureOf({
    value: substituted ? replay?.value?.json : details.counterexample?.[0],
    error: details.errorInstance,
    seed: details.seed,
    path: details.counterexamplePath ?? '',
    property,
    how,
    replayed: replay !== undefined,
  });
}

/**
 * The search of searchOnce with the cases run concurrently: the values fast-check would
 * generate for the seed, in order, run on the check's own job slot plus any it can borrow;
 * the verdict is that of the lowest failing case, as in a search one case at a time (cases
 * after it are not started once it is known). That case is then run again through fast-check
 * by its path, which shrinks it exactly as a search one case at a time would, so the reproduce
 * line (same seed) and the saved counterexample are the same whatever `--jobs` is. If the
 * case passes when run again, its first failure is reported unshrunk.
 */
async function searchConcurrently<T>(
  env: CheckEnv,
  slots: Slots,
  property: number,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  search: SearchOptions<T> & { readonly runs: number },
): Promise<void> {
  const values = fc.sample(arbitrary, { seed: env.seed, numRuns: search.runs });
  let next = 0;
  let lowest: { index: number; error: unknown } | undefined;
  const more = () => next < values.length && lowest === undefined && !env.signal.aborted;
  const workers = new Set<Promise<void>>();
  const borrow = () => {
    // One worker runs on the check's own slot; the others on free slots no waiting check could start on.
    while (more() && workers.size < values.length - next && slots.tryAcquire()) {
      const worker: Promise<void> = work().finally(() => {
        slots.release();
        workers.delete(worker);
      });
      workers.add(worker);
    }
  };
  async function work(): Promise<void> {
    while (more()) {
      const index = next++;
      try {
        await predicate(values[index] as T);
      } catch (error) {
        if (lowest === undefined || index < lowest.index) lowest = { index, error };
      }
      borrow();
    }
  }
  const own = work();
  borrow();
  await own;
  while (workers.size > 0) await Promise.all([...workers]);
  if (lowest === undefined || env.signal.aborted) return;
  const first = lowest;
  // Not judged is the outcome, with nothing to shrink.
  if (isUnjudged(first.error)) throw first.error;
  const path = String(first.index);
  // The case runs first; only if it fails again do its shrinks follow (else fast-check would
  // go on to the cases after it, which the search above did not judge).
  let calls = 0;
  let failedAgain = false;
  // The budget starts here, at the failing case, as in a search one case at a time.
  const budgeted = withShrinkBudget(predicate, search.maxShrinkRuns, { brokeRule: true });
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      const call = calls++;
      if (env.signal.aborted || (call > 0 && !failedAgain)) return;
      try {
        await budgeted(value);
      } catch (e) {
        if (call === 0) failedAgain = true;
        throw e;
      }
    }),
    { seed: env.seed, path, numRuns: search.runs },
  );
  if (details.failed && 'errorInstance' in details) {
    throw failureOf({
      value: details.counterexample?.[0],
      error: details.errorInstance,
      seed: details.seed,
      path: details.counterexamplePath ?? path,
      property,
      how: `property failed after ${first.index + 1} runs, shrunk ${details.numShrinks} times`,
      replayed: false,
    });
  }
  throw failureOf({
    value: values[first.index],
    error: first.error,
    seed: env.seed,
    path,
    property,
    how: `property failed after ${first.index + 1} runs (${
      calls > 0 && !failedAgain && budgeted.skippedShrinking() !== undefined
        ? `the case could not be judged when run again to shrink it: ${budgeted.skippedShrinking()?.message}`
        : 'the case passed when run again to shrink it'
    })`,
    replayed: false,
  });
}

/** The error a failed case of a property makes: its own verdict, or a PropertyFailure with the case. */
function failureOf(found: {
  value: unknown;
  error: unknown;
  seed: number;
  path: string;
  property: number;
  how: string;
  replayed: boolean;
}): Error {
  const { value, error } = found;
  // The target went away, or the case could not be judged: that is the outcome, not a counterexample.
  if (isUnjudged(error)) return error;
  const text = fc.stringify(value);
  const json = jsonOf(value);
  const counterexample: PropertyCounterexample = {
    fastCheck: { seed: found.seed, path: found.path, property: found.property },
    ...(json === undefined ? {} : { json }),
    text,
    replayed: found.replayed,
  };
  const where = `${found.how}; fast-check seed ${found.seed}, path "${found.path}"; counterexample ${abbreviate(jsonText(json === undefined ? value : json.value))}`;
  if (error instanceof CheckFailure) {
    return new PropertyFailure(
      `${error.message} (${where})`,
      error.expected,
      error.actual,
      error.evidence,
      counterexample,
      undefined,
      error.sharedCause === undefined ? {} : { sharedCause: error.sharedCause },
    );
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new PropertyFailure(`${message} (${where})`, undefined, undefined, undefined, counterexample);
}

/** The value as JSON when JSON text brings back exactly that value (no undefined, -0, NaN, class instances...). */
function jsonOf(value: unknown): { value: unknown } | undefined {
  if (!isJsonExact(value, 0)) return undefined;
  return { value: JSON.parse(JSON.stringify(value)) };
}

function isJsonExact(value: unknown, depth: number): boolean {
  if (depth > 100) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    if (Object.keys(value).length !== value.length) return false;
    return value.every((v) => isJsonExact(v, depth + 1));
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // fast-check builds some records with a null prototype; JSON brings them back as plain objects.
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  return Object.entries(value).every(([, v]) => isJsonExact(v, depth + 1));
}

function sameAsJson(generated: unknown, saved: unknown): boolean {
  const json = jsonOf(generated);
  return json !== undefined && isDeepStrictEqual(json.value, saved);
}

function abbreviate(s: string): string {
  return s.length > 1500 ? `${s.slice(0, 1500)}... (${s.length} chars)` : s;
}
