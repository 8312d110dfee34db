import { Readable } from 'node:stream';
import fc from 'fast-check';
import type { CliContext, CliDeps, CliRunGuard } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import {
  type Check,
  CheckFailure,
  type CheckSchedule,
  CheckSkipped,
  HarnessBug,
  NotExercised,
  type Suite,
  TargetGone,
  TargetUnavailable,
} from '../../src/harness/check.js';
import { UsageError } from '../../src/harness/errors.js';
import { checkProperty } from '../../src/harness/property.js';
import type { Level } from '../../src/harness/results.js';
import { stopOf } from '../../src/harness/stop.js';
import { registerSuite, SUITES, type SuiteEntry } from '../../src/suites/registry.js';

/**
 * How a fake check ends: as told; `not-exercised` ran but judged nothing; `gone` saw the
 * target go (TargetGone); `hang` never settles and ignores its abort signal; `bug` caught
 * wirecheck in a state it must never reach (HarnessBug).
 */
export type Outcome = 'pass' | 'fail' | 'skip' | 'not-exercised' | 'gone' | 'hang' | 'bug';

export interface FakeCheck {
  id: string;
  outcome: Outcome;
  level?: Level;
  tier?: 'quick' | 'full';
  timeoutMs?: number;
  /** Its failure carries this shared cause. */
  cause?: string;
  /** Run one checkProperty with this many runs (a cap) before ending as told. */
  propertyRuns?: number;
  /** Wait this long before ending as told. */
  delayMs?: number;
  schedule?: CheckSchedule;
  /** Gets `begin <id>` and `end <id>` (a log several suites may share, to see them overlap). */
  log?: string[];
}

export interface FakeTarget {
  url: string;
}

export interface FakeSuiteOptions {
  unreachable?: boolean;
  /** open() takes this long. */
  openMs?: number;
  /** Its checks may run concurrently (`--jobs`). */
  concurrent?: boolean;
  /** Its close fails (`throws`) or leaves something behind (a warning), as a target's leftovers may make it. */
  closing?: { throws: string } | { warns: string } | { hangs: true };
}

/** A suite whose checks end as told and that records what ran, with which seed, and whether it closed. */
export function fakeSuite(name: string, checks: FakeCheck[], options: FakeSuiteOptions = {}) {
  const ran: { id: string; seed: number; runs: number }[] = [];
  const events: string[] = [];
  const suite: Suite<FakeTarget, object> = {
    name,
    description: `fake suite ${name}`,
    ...(options.concurrent === true ? { concurrent: true } : {}),
    checks: checks.map(
      (c): Check<object> => ({
        id: c.id,
        clause: 'Events rule 1',
        description: `check ${c.id}`,
        level: c.level ?? 'must',
        basis: (c.level ?? 'must') === 'must' ? 'spec' : 'spec-reference',
        rule: `The rule of check ${c.id}, stated for every target.`,
        ...(c.tier === undefined ? {} : { tier: c.tier }),
        ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
        ...(c.schedule === undefined ? {} : { schedule: c.schedule }),
        async run(_ctx, env) {
          ran.push({ id: c.id, seed: env.seed, runs: env.runs });
          c.log?.push(`begin ${c.id}`);
          if (c.delayMs !== undefined) await new Promise((r) => setTimeout(r, c.delayMs));
          c.log?.push(`end ${c.id}`);
          if (c.propertyRuns !== undefined) {
            await checkProperty(env, fc.integer(), async () => {}, { runs: c.propertyRuns });
          }
          const options = c.cause === undefined ? {} : { sharedCause: c.cause };
          if (c.outcome === 'fail') {
            throw new CheckFailure(`${c.id} broke the rule`, 'good', 'bad', undefined, options);
          }
          if (c.outcome === 'skip') throw new CheckSkipped('not applicable');
          if (c.outcome === 'not-exercised') throw new NotExercised('no request reached the mock');
          if (c.outcome === 'gone')
            throw new TargetGone('the target exited with status 1', 'running', 'exited');
          if (c.outcome === 'hang') await new Promise(() => {});
          if (c.outcome === 'bug') throw new HarnessBug(`${c.id} found a list that leaves it out`);
        },
      }),
    ),
    describeTarget: (t) => t.url,
    targetArgs: (t) => ['--fake-url', t.url],
    async open(target) {
      events.push('open');
      if (options.openMs !== undefined) await new Promise((r) => setTimeout(r, options.openMs));
      if (options.unreachable) {
        throw new TargetUnavailable(
          `the client command "node /nonexistent.js" exited 1 before sending a request; stderr:\nError: Cannot find module '/nonexistent.js' (at ${target.url})`,
        );
      }
      return {
        close: async () => {
          events.push('close');
          const closing = options.closing;
          if (closing !== undefined && 'throws' in closing) throw new Error(closing.throws);
          if (closing !== undefined && 'hangs' in closing) await new Promise(() => {});
          return closing !== undefined && 'warns' in closing ? closing.warns : undefined;
        },
      };
    },
  };
  return { suite, ran, events };
}

/** A registry entry with the target option `--fake-url <url>` (required). */
export function fakeEntry(
  suite: Suite<FakeTarget, object>,
  reference?: { url: string; events: string[]; fails?: boolean; note?: string },
): SuiteEntry {
  return {
    suite,
    targetOptions: [{ flags: '--fake-url <url>', description: 'where the fake target is' }],
    targetFromOptions(opts) {
      if (typeof opts.fakeUrl !== 'string') throw new UsageError('this suite needs --fake-url');
      return { url: opts.fakeUrl };
    },
    ...(reference === undefined
      ? {}
      : {
          async reference() {
            if (reference.fails) throw new Error('port in use');
            reference.events.push(`start ${suite.name}`);
            return {
              target: { url: reference.url },
              ...(reference.note === undefined ? {} : { note: reference.note }),
              close: async () => {
                reference.events.push(`close ${suite.name}`);
              },
            };
          },
        }),
  };
}

/**
 * Make these entries the only registered suites for one test (the built-in suites are set
 * aside, so `all` and `list` see just the fakes); returns the function that restores them.
 */
export function registerAll(...entries: SuiteEntry[]): () => void {
  const builtIn = SUITES.splice(0);
  const undo = entries.map(registerSuite);
  return () => {
    for (const u of undo) u();
    SUITES.unshift(...builtIn);
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI in-process with captured output. */
/**
 * A run guard driven by the test instead of the process: aborting `stop` (with a RunStop as
 * the reason, e.g. interruptStop('SIGINT')) stops the run as a signal would.
 */
export function testGuard(stop: AbortSignal = new AbortController().signal): CliRunGuard {
  return {
    signal: stop,
    get stop() {
      return stop.aborted ? stopOf(stop) : undefined;
    },
    harnessErrors: [],
    dispose: () => {},
    release: () => {},
  };
}

export async function cli(
  args: string[],
  extra: {
    deps?: CliDeps;
    stdin?: string;
    env?: NodeJS.ProcessEnv;
    shutdown?: AbortSignal;
    /** Stops a `test`/`all` run as SIGINT, SIGTERM or an uncaught error would. */
    stop?: AbortSignal;
  } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const context: Partial<CliContext> = {
    stdout: { write: (s: string) => (stdout += s), isTTY: false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    stdin: Readable.from([Buffer.from(extra.stdin ?? '')]),
    env: extra.env ?? {},
    deps: extra.deps ?? {},
    onShutdown: () => ({ signal: extra.shutdown ?? new AbortController().signal, dispose: () => {} }),
    guardRun: () => testGuard(extra.stop),
  };
  const code = await main(['node', 'wirecheck', ...args], context);
  return { code, stdout, stderr };
}

export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

/**
 * A run's console with what may differ between two runs of one seed removed: durations,
 * how many checks ran at once, and the start-up note that depends on them.
 */
export function withoutTimes(text: string): string {
  return text
    .replace(/\d+(\.\d+)? (ms|s)\b/g, 'T')
    .replace(/, \d+ checks at once/g, '')
    .replace(/: (most|about \d+%) of the suite's time is starting the [^\n]*/g, '');
}
