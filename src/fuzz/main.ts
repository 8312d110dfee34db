import { parseArgs } from 'node:util';
import { consoleLineIo, type LineIo } from '../harness/line-io.js';
import { type FuzzRunResult, runSurface } from './run-surface.js';
import type { FuzzSurface } from './surface.js';
import { SURFACES } from './surfaces.js';

export const DEFAULT_RUNS = 10_000;
/** A single case slower than this is reported as a hang. */
export const DEFAULT_CASE_TIMEOUT_MS = 5_000;
/** No surface runs (cases plus shrinking) longer than this. */
export const DEFAULT_TIME_LIMIT_MS = 10 * 60_000;

const USAGE = `usage: npm run fuzz -- [--surface NAME]... [--runs N] [--seed N] [--path P] [--list]
  --surface NAME  fuzz only this surface (repeatable; default: all)
  --runs N        cases per surface (default ${DEFAULT_RUNS})
  --seed N        fast-check seed (default: random, printed)
  --path P        replay the one counterexample at this path (printed with a failure)
  --list          list the surfaces and exit`;

export type FuzzIo = LineIo;

const consoleIo: FuzzIo = consoleLineIo;

/** Bad command line: exit status 2 with the usage. */
class UsageError extends Error {}

function integerOption(value: string | undefined, name: string, min: number, fallback: () => number): number {
  if (value === undefined) return fallback();
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got "${value}"`);
  }
  return Number(value);
}

interface FuzzCommand {
  surfaces: FuzzSurface[];
  runs: number;
  seed: number;
  path: string | undefined;
  list: boolean;
  help: boolean;
}

function parseCommand(args: string[], surfaces: readonly FuzzSurface[]): FuzzCommand {
  let values: {
    surface?: string[] | undefined;
    runs?: string | undefined;
    seed?: string | undefined;
    path?: string | undefined;
    list?: boolean | undefined;
    help?: boolean | undefined;
  };
  try {
    values = parseArgs({
      args,
      options: {
        surface: { type: 'string', multiple: true },
        runs: { type: 'string' },
        seed: { type: 'string' },
        path: { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const chosen = (values.surface ?? surfaces.map((s) => s.name)).map((name) => {
    const found = surfaces.find((s) => s.name === name);
    if (!found)
      throw new UsageError(`unknown surface "${name}"; surfaces: ${surfaces.map((s) => s.name).join(', ')}`);
    return found;
  });
  return {
    surfaces: chosen,
    runs: integerOption(values.runs, 'runs', 1, () => DEFAULT_RUNS),
    seed: integerOption(values.seed, 'seed', -(2 ** 31), () => Math.floor(Math.random() * 2 ** 31)),
    path: values.path,
    list: values.list ?? false,
    help: values.help ?? false,
  };
}

function reproduce(result: FuzzRunResult & { status: 'failed' }, runs: number): string[] {
  // `--seed=N`: a negative seed given as a separate word reads as an option.
  const base = `npm run fuzz -- --surface ${result.surface} --seed=${result.seed}`;
  return [
    `  reproduce: ${base}${runs === DEFAULT_RUNS ? '' : ` --runs ${runs}`}`,
    `  replay the shrunk case alone: ${base} --path "${result.path}"`,
  ];
}

function report(result: FuzzRunResult, runs: number, io: FuzzIo, width: number): void {
  const time = `${(result.durationMs / 1000).toFixed(2)} s`;
  const status = result.status === 'passed' ? 'ok' : result.status === 'failed' ? 'FAILED' : 'INTERRUPTED';
  io.out(
    `${result.surface.padEnd(width)} ${String(result.cases).padStart(7)} cases ${time.padStart(9)}  ${status}`,
  );
  if (result.status === 'interrupted') {
    io.out(`  stopped after ${result.cases} of ${runs} cases: the time limit ran out`);
  }
  if (result.status === 'failed') {
    io.out(`  seed ${result.seed}, path "${result.path}" (shrunk ${result.shrinks} times)`);
    io.out(`  error: ${result.error}`);
    io.out(`  counterexample: ${result.counterexample}`);
    for (const line of reproduce(result, runs)) io.out(line);
  }
}

/**
 * The fuzz program: every surface (or those named) with `runs` cases each. Exit status
 * 0 when every surface kept its rule, 1 when one failed or ran out of time, 2 on bad usage.
 */
export async function main(
  argv: readonly string[],
  io: FuzzIo = consoleIo,
  surfaces: readonly FuzzSurface[] = SURFACES,
): Promise<number> {
  let command: FuzzCommand;
  try {
    command = parseCommand(argv.slice(2), surfaces);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (command.help) {
    io.out(USAGE);
    return 0;
  }
  // Columns line up under the longest surface name.
  const width = Math.max(20, ...surfaces.map((s) => s.name.length));
  if (command.list) {
    for (const s of surfaces) io.out(`${s.name.padEnd(width)} ${s.description}`);
    return 0;
  }
  const { runs, seed, path } = command;
  io.out(
    `wirecheck fuzz: seed ${seed}, ${runs} cases per surface${path === undefined ? '' : `, replaying path ${path}`}`,
  );
  let failed = false;
  for (const surface of command.surfaces) {
    const result = await runSurface(surface, {
      seed,
      runs,
      caseTimeoutMs: DEFAULT_CASE_TIMEOUT_MS,
      timeLimitMs: DEFAULT_TIME_LIMIT_MS,
      ...(path === undefined ? {} : { path }),
    });
    report(result, runs, io, width);
    if (result.status !== 'passed') failed = true;
  }
  return failed ? 1 : 0;
}
