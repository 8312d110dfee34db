import { Readable } from 'node:stream';
import type { CliContext, CliDeps } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import {
  type Check,
  CheckFailure,
  CheckSkipped,
  type Suite,
  TargetUnavailable,
} from '../../src/harness/check.js';
import { UsageError } from '../../src/harness/errors.js';
import type { Level } from '../../src/harness/results.js';
import { registerSuite, SUITES, type SuiteEntry } from '../../src/suites/registry.js';

export type Outcome = 'pass' | 'fail' | 'skip';

export interface FakeCheck {
  id: string;
  outcome: Outcome;
  level?: Level;
  tier?: 'quick' | 'full';
}

export interface FakeTarget {
  url: string;
}

/** A suite whose checks end as told and that records what ran and with which seed. */
export function fakeSuite(name: string, checks: FakeCheck[], options: { unreachable?: boolean } = {}) {
  const ran: { id: string; seed: number; runs: number }[] = [];
  const suite: Suite<FakeTarget, object> = {
    name,
    description: `fake suite ${name}`,
    checks: checks.map(
      (c): Check<object> => ({
        id: c.id,
        clause: 'Events rule 1',
        description: `check ${c.id}`,
        level: c.level ?? 'must',
        ...(c.tier === undefined ? {} : { tier: c.tier }),
        async run(_ctx, env) {
          ran.push({ id: c.id, seed: env.seed, runs: env.runs });
          if (c.outcome === 'fail') throw new CheckFailure(`${c.id} broke the rule`, 'good', 'bad');
          if (c.outcome === 'skip') throw new CheckSkipped('not applicable');
        },
      }),
    ),
    describeTarget: (t) => t.url,
    targetArgs: (t) => ['--fake-url', t.url],
    async open(target) {
      if (options.unreachable) throw new TargetUnavailable(`nothing answers at ${target.url}`);
      return { close: async () => {} };
    },
  };
  return { suite, ran };
}

/** A registry entry with the target option `--fake-url <url>` (required). */
export function fakeEntry(
  suite: Suite<FakeTarget, object>,
  reference?: { url: string; events: string[]; fails?: boolean },
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
export async function cli(
  args: string[],
  extra: { deps?: CliDeps; stdin?: string; env?: NodeJS.ProcessEnv; shutdown?: AbortSignal } = {},
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
  };
  const code = await main(['node', 'wirecheck', ...args], context);
  return { code, stdout, stderr };
}

export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
