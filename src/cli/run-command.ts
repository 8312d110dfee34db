import type { Command } from 'commander';
import { WirecheckError } from '../harness/errors.js';
import { defaultJobs, defaultRuns, randomSeed } from '../harness/run-suite.js';
import { findSuite, SUITES, type SuiteEntry, suiteNames } from '../suites/registry.js';
import type { CliContext } from './context.js';
import {
  assertOnlyMatches,
  commanderOptionOf,
  parseOptions,
  RunOptionsInput,
  targetOptionUnion,
  targetOptionValues,
} from './options.js';
import { loadReplay } from './replay-option.js';
import { asWirecheckError } from './report-error.js';
import { type PlannedSuite, type RunSettings, runPlannedSuites } from './run-suites.js';
import { unknownSuiteError } from './unknown-suite.js';

type Finish = (exitCode: number) => void;

/** Option attributes of the run itself; no suite may use them for a target option. */
const RUN_OPTION_ATTRIBUTES = [
  'reportDir',
  'seed',
  'runs',
  'jobs',
  'only',
  'full',
  'strict',
  'verbose',
  'help',
  'baseline',
  'shard',
  'replay',
];

function pickRunOptions(opts: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(opts).filter(([key]) => RUN_OPTION_ATTRIBUTES.includes(key)));
}

function settingsOf(run: RunOptionsInput, verbose: boolean): RunSettings {
  const full = run.full ?? false;
  return {
    seed: run.seed ?? randomSeed(),
    runs: run.runs ?? defaultRuns(full),
    jobs: run.jobs ?? defaultJobs(),
    full,
    strict: run.strict ?? false,
    verbose,
    ...(run.only === undefined ? {} : { only: run.only }),
    ...(run.reportDir === undefined ? {} : { reportDir: run.reportDir }),
    ...(run.baseline === undefined ? {} : { baseline: run.baseline }),
    ...(run.shard === undefined ? {} : { shard: run.shard }),
  };
}

function addCommonRunOptions(command: Command): Command {
  return command
    .option('--seed <n>', 'seed for every random choice (default: random, printed in the report)')
    .option('--runs <n>', 'fast-check runs per property (default 100, 1000 with --full)')
    .option(
      '--jobs <n>',
      `checks of a suite run at once (default: the available parallelism, ${defaultJobs()} here); 1 runs them one after another`,
    )
    .option('--full', 'run the slow checks too, with real-time defaults')
    .option('--strict', 'count warnings (level "should") as failures')
    .option('--baseline <file>', 'expected failures, one `suite:check-id  reason` per line (see docs/ci.md)')
    .option('--shard <i/n>', "run only the i-th of n deterministic parts of each suite's selected checks");
}

/**
 * The variant of each other reference of a suite (SuiteResult.variant): its label as one word
 * of lower-case letters and digits joined by `-` (`streamable http` -> `streamable-http`),
 * numbered when two labels make one. The reference itself keeps none: its results and folder
 * are the suite's own, as before a suite had other references.
 */
function withVariants<T extends { readonly label: string }>(
  others: readonly T[],
): { other: T; variant: string }[] {
  const taken = new Set<string>();
  return others.map((other, i) => {
    const base =
      other.label
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40)
        .replace(/-+$/, '') || `other-${i + 1}`;
    let variant = base;
    for (let n = 2; taken.has(variant); n++) variant = `${base}-${n}`;
    taken.add(variant);
    return { other, variant };
  });
}

function suiteOrThrow(name: string): SuiteEntry {
  const entry = findSuite(name);
  if (entry === undefined) throw unknownSuiteError(name);
  return entry;
}

/** `wirecheck test <suite> [target options] [run options]`. */
export function addTestCommand(program: Command, ctx: CliContext, finish: Finish): void {
  const union = targetOptionUnion(SUITES, RUN_OPTION_ATTRIBUTES);
  const command = program
    .command('test')
    .description('run one suite against an implementation under test')
    .argument('<suite>', `the suite to run (${suiteNames().join(', ') || 'none registered yet'})`);
  for (const option of union) command.addOption(commanderOptionOf(option));
  addCommonRunOptions(command)
    .option('--report-dir <dir>', 'write results.json, junit.xml and report.html there')
    .option(
      '--only <ids>',
      "run only these checks: comma-separated ids, or prefixes ending in '.'; repeatable",
      (value: string, previous: string | undefined) =>
        previous === undefined ? value : `${previous},${value}`,
    )
    .option(
      '--replay <file>',
      'run only the saved counterexample of a property-based check (see docs/fixtures.md)',
    )
    .action(async (suiteName: string, opts: Record<string, unknown>) => {
      const entry = suiteOrThrow(suiteName);
      const parsed = parseOptions(RunOptionsInput, pickRunOptions(opts));
      const replay = parsed.replay === undefined ? undefined : await loadReplay(entry, parsed.replay, parsed);
      const run = replay?.run ?? parsed;
      assertOnlyMatches(entry, run.only);
      let target: unknown;
      try {
        target = entry.targetFromOptions(targetOptionValues(entry, union, opts));
      } catch (e) {
        throw e instanceof WirecheckError ? asWirecheckError(e, `suite ${suiteName}`) : e;
      }
      const plan: PlannedSuite = {
        entry,
        targetKind: 'target',
        start: async () => ({ target, close: async () => {} }),
      };
      const settings = settingsOf(run, true);
      if (replay !== undefined) ctx.stdout.write(`${replay.line}\n`);
      finish(
        await runPlannedSuites(
          [plan],
          replay === undefined ? settings : { ...settings, replay: replay.case, replayFile: parsed.replay },
          ctx,
        ),
      );
    });
}

/** `wirecheck all`: every suite with a reference implementation, against that reference. */
export function addAllCommand(program: Command, ctx: CliContext, finish: Finish): void {
  addCommonRunOptions(
    program.command('all').description('run every suite against its built-in reference implementation'),
  )
    .option('--report-dir <dir>', 'where the reports go', 'reports/latest')
    .option('--verbose', 'print passing checks too')
    .action(async (opts: Record<string, unknown>) => {
      const run = parseOptions(RunOptionsInput, pickRunOptions(opts));
      const plan: PlannedSuite[] = [];
      for (const entry of SUITES) {
        const reference = entry.reference?.bind(entry);
        if (reference !== undefined)
          plan.push({ entry, targetKind: 'reference implementation', start: reference });
        for (const { other, variant } of withVariants(entry.otherReferences ?? []))
          plan.push({
            entry,
            targetKind: `reference implementation (${other.label})`,
            variant,
            start: () => other.start(),
          });
      }
      if (plan.length === 0) {
        throw new WirecheckError(
          'WC_NO_REFERENCE',
          'no registered suite has a reference implementation to run',
        );
      }
      finish(await runPlannedSuites(plan, settingsOf(run, run.verbose ?? false), ctx));
    });
}
