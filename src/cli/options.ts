import { Option } from 'commander';
import { z } from 'zod';
import { assertOnlyMatches as assertSuiteOnlyMatches } from '../api.js';
import { UsageError } from '../harness/errors.js';
import { parseShard } from '../harness/shard.js';
import type { SuiteEntry } from '../suites/registry.js';
import { integer } from './parse-options.js';

// Kept apart so a command that parses its options this way need not load the whole library.
export { integer, parseOptions } from './parse-options.js';

const MAX_SEED = 0x7fffffff;

/** The run options shared by `test` and `all`, as commander hands them over (strings). */
export const RunOptionsInput = z.object({
  reportDir: z.string().min(1, '--report-dir must not be empty').optional(),
  seed: integer('--seed', 0, MAX_SEED).optional(),
  runs: integer('--runs', 1, 1_000_000).optional(),
  jobs: integer('--jobs', 1, 256).optional(),
  only: z
    .string()
    .transform((s) => s.split(',').map((id) => id.trim()))
    .pipe(z.array(z.string().min(1, '--only has an empty entry')).min(1))
    .optional(),
  full: z.boolean().optional(),
  strict: z.boolean().optional(),
  verbose: z.boolean().optional(),
  baseline: z.string().min(1, '--baseline must not be empty').optional(),
  replay: z.string().min(1, '--replay must not be empty').optional(),
  shard: z
    .string()
    .regex(/^\s*\d+\s*\/\s*\d+\s*$/, '--shard takes i/n, e.g. 2/4')
    .transform((text) => parseShard(text))
    .optional(),
});
export type RunOptionsInput = z.infer<typeof RunOptionsInput>;

/** A target option as the `test` command declares it: one flag, maybe shared by several suites. */
export interface TargetOptionOfCli {
  readonly flags: string;
  readonly attribute: string;
  readonly description: string;
  readonly suites: readonly string[];
  readonly repeatable: boolean;
}

/**
 * The union of every suite's target options, one per flag, each naming the suites that
 * take it (shown in --help). Two suites spelling one flag differently, or a target option
 * clashing with a run option, is a programming error.
 */
export function targetOptionUnion(
  entries: readonly SuiteEntry[],
  reserved: readonly string[],
): TargetOptionOfCli[] {
  const byAttribute = new Map<
    string,
    { flags: string; descriptions: string[]; suites: string[]; repeatable: boolean }
  >();
  for (const entry of entries) {
    for (const spec of entry.targetOptions) {
      const attribute = new Option(spec.flags).attributeName();
      if (reserved.includes(attribute)) {
        throw new Error(`suite ${entry.suite.name}: target option ${spec.flags} clashes with a run option`);
      }
      const seen = byAttribute.get(attribute);
      if (seen === undefined) {
        byAttribute.set(attribute, {
          flags: spec.flags,
          descriptions: [spec.description],
          suites: [entry.suite.name],
          repeatable: spec.repeatable === true,
        });
      } else if (seen.flags !== spec.flags || seen.repeatable !== (spec.repeatable === true)) {
        throw new Error(
          `suite ${entry.suite.name} declares ${spec.flags}${spec.repeatable === true ? ' (repeatable)' : ''}, but suite ${seen.suites[0]} declares ${seen.flags}${seen.repeatable ? ' (repeatable)' : ''}`,
        );
      } else {
        seen.suites.push(entry.suite.name);
        seen.descriptions.push(spec.description);
      }
    }
  }
  return [...byAttribute].map(([attribute, o]) => ({
    flags: o.flags,
    attribute,
    // A flag shared by several suites means something different to each: say what, per suite.
    description:
      o.suites.length === 1
        ? `${o.descriptions[0]} [${o.suites[0]}]`
        : o.suites.map((suite, i) => `[${suite}] ${o.descriptions[i]}`).join('; '),
    suites: o.suites,
    repeatable: o.repeatable,
  }));
}

/** The commander option of a target option: a repeatable one collects its values in order. */
export function commanderOptionOf(option: TargetOptionOfCli): Option {
  const made = new Option(option.flags, option.description);
  return option.repeatable
    ? made.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
    : made;
}

/**
 * The values of `entry`'s own target options, keyed by attribute name. A value given for
 * another suite's option is a UsageError: it would be silently ignored otherwise.
 */
export function targetOptionValues(
  entry: SuiteEntry,
  union: readonly TargetOptionOfCli[],
  values: Record<string, unknown>,
): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const option of union) {
    const value = values[option.attribute];
    if (value === undefined) continue;
    if (!option.suites.includes(entry.suite.name)) {
      const accepted = entry.targetOptions.map((o) => o.flags).join(', ') || 'none';
      throw new UsageError(
        `${option.flags} is not a target option of suite ${entry.suite.name} (its target options: ${accepted})`,
      );
    }
    own[option.attribute] = value;
  }
  return own;
}

/** `--only` entries that select nothing (a typo would otherwise run zero checks and pass). */
export function assertOnlyMatches(entry: SuiteEntry, only: readonly string[] | undefined): void {
  assertSuiteOnlyMatches(entry.suite, only);
}
