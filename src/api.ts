import { applyBaseline, type Baseline } from './harness/baseline.js';
import type { Suite } from './harness/check.js';
import { UsageError, WirecheckError } from './harness/errors.js';
import type { SuiteResult } from './harness/results.js';
import { type RunOptions, runSuite as runSuiteCore } from './harness/run-suite.js';
import { parseShard, type Shard } from './harness/shard.js';
import { findSuite, suiteNames } from './suites/registry.js';

/**
 * Options of the programmatic API: those of the core run plus what the command line adds.
 * `shard` may be given as on the command line (`'2/4'`).
 */
export interface SuiteRunOptions extends Omit<RunOptions, 'shard'> {
  shard?: Shard | string;
  /** Expected failures (from `readBaseline` or `parseBaseline`): checks are marked as the CLI marks them. */
  baseline?: Baseline;
  /** Warnings count as failures (for baseline marks; the CLI's --strict). */
  strict?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: suites of any target and context
export type AnySuite = Suite<any, any>;

/** `--base-url <url>` -> `baseUrl`, the key a target option has in a target-options object. */
function attributeOf(flags: string): string {
  const long = /--([A-Za-z0-9-]+)/.exec(flags)?.[1] ?? flags;
  return long.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}

/**
 * A registered suite and its target, from the suite's name and its target options given as
 * an object (`{ runner: 'python my_runner.py' }`, `{ baseUrl: 'http://...' }`; kebab-case
 * keys as on the command line work too). An unknown name or option is a UsageError.
 */
export function resolveSuite(
  name: string,
  targetOptions: Record<string, unknown>,
): { suite: AnySuite; target: unknown } {
  const entry = findSuite(name);
  if (entry === undefined) {
    throw new WirecheckError(
      'WC_UNKNOWN_SUITE',
      `no suite named "${name}"; suites: ${suiteNames().join(', ')}`,
    );
  }
  const known = new Map(entry.targetOptions.map((o) => [attributeOf(o.flags), o.flags]));
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(targetOptions)) {
    const attribute = attributeOf(key.startsWith('--') ? key : `--${key}`);
    if (!known.has(attribute)) {
      const accepted = [...known.keys()].join(', ') || 'none';
      throw new UsageError(
        `${key} is not a target option of suite ${name} (its target options: ${accepted})`,
      );
    }
    if (value !== undefined) values[attribute] = value;
  }
  return { suite: entry.suite, target: entry.targetFromOptions(values) };
}

/**
 * `--only` entries that select no check: an error, so a typo cannot produce an empty green
 * run (exact ids, or prefixes ending in '.').
 */
export function assertOnlyMatches(
  suite: Pick<AnySuite, 'name' | 'checks'>,
  only: readonly string[] | undefined,
): void {
  if (only === undefined) return;
  const ids = suite.checks.map((c: { id: string }) => c.id);
  const unmatched = only.filter((o) => !ids.some((id) => id === o || (o.endsWith('.') && id.startsWith(o))));
  if (unmatched.length > 0) {
    throw new WirecheckError(
      'WC_NO_CHECKS_SELECTED',
      `--only ${unmatched.join(',')} matches no check of suite ${suite.name} (ids are listed by \`wirecheck list ${suite.name}\`; a prefix ends in '.')`,
    );
  }
}

export function shardOption(shard: Shard | string | undefined): Shard | undefined {
  return typeof shard === 'string' ? parseShard(shard) : shard;
}

/**
 * Run a suite and get its results, as `wirecheck test` would, without the console:
 *
 *     await runSuite('runner', { runner: 'python my_runner.py' }, { seed: 1, only: ['runner.refusal.'] })
 *     await runSuite(myCustomSuite, target, { seed: 1 })
 *
 * The first form looks the suite up in the registry and builds its target from the target
 * options; the second takes a suite object and its target as they are.
 */
export function runSuite(
  name: string,
  targetOptions: Record<string, unknown>,
  options?: SuiteRunOptions,
): Promise<SuiteResult>;
export function runSuite<T, C>(
  suite: Suite<T, C>,
  target: T,
  options?: SuiteRunOptions,
): Promise<SuiteResult>;
export async function runSuite(
  suiteOrName: string | AnySuite,
  target: unknown,
  options: SuiteRunOptions = {},
): Promise<SuiteResult> {
  const resolved =
    typeof suiteOrName === 'string'
      ? resolveSuite(suiteOrName, (target ?? {}) as Record<string, unknown>)
      : { suite: suiteOrName, target };
  assertOnlyMatches(resolved.suite, options.only);
  const { baseline, strict, shard, ...core } = options;
  const shardValue = shardOption(shard);
  const result = await runSuiteCore(resolved.suite, resolved.target, {
    ...core,
    ...(shardValue === undefined ? {} : { shard: shardValue }),
  });
  return applyBaseline(result, baseline, strict ?? false);
}
