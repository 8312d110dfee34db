import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { IsolationLevel } from '../runner/index.js';
import { runInterleaved, type Variant } from './interleave.js';
import { type BenchRow, comparisonRow } from './rows.js';
import { type MemoryChildConfig, MemoryChildReport } from './runner-memory-wire.js';
import { median } from './stats.js';

/** The issue: printing 1 GB "must not grow the runner's memory by more than a few MB". */
export const MEMORY_BUDGET_MIB = 16;
/** runner/bare node reader: the runner may cost at most a quarter more than reading the output at all. */
export const BARE_READER_GOAL = 0.8;
/**
 * Growth below this counts as this much: an idle child's peak moves by 0.02-0.3 MiB, so
 * smaller numbers are noise, and a ratio must stay finite (JSON has no Infinity).
 */
export const GROWTH_FLOOR_MIB = 0.1;
const MIB = 1024 * 1024;
const CHILD_TIMEOUT_MS = 300_000;

export interface MemorySizes {
  /** What the command prints: `head -c BYTES /dev/zero`. */
  readonly outputBytes: number;
  /** Rounds of fresh children (runner, bare reader), interleaved; no warm-up, every child starts cold. */
  readonly rounds: number;
}

/** `1 GiB`, `10 MiB`: how the row names call the output size. */
export function sizeLabel(bytes: number): string {
  if (bytes % (1024 * MIB) === 0) return `${bytes / (1024 * MIB)} GiB`;
  if (bytes % MIB === 0) return `${bytes / MIB} MiB`;
  return `${bytes} bytes`;
}

/**
 * The child program. Built code (dist/bench) runs its compiled sibling; tests run this
 * module from src/ as TypeScript, and a plain `node` child cannot, so they use dist/ too
 * (vitest's global setup builds it).
 */
export function memoryChildScript(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? join(dirname(here), '..', '..', 'dist', 'bench', 'runner-memory-child.js')
    : join(dirname(here), 'runner-memory-child.js');
}

export async function runMemoryChild(config: MemoryChildConfig): Promise<MemoryChildReport> {
  const script = memoryChildScript();
  if (!existsSync(script)) throw new Error(`the memory bench child ${script} is missing: run npm run build`);
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, JSON.stringify(config)], {
    timeout: CHILD_TIMEOUT_MS,
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (line === '') {
    // Seen once when another build was rewriting dist/ as the child loaded it.
    throw new Error(
      `${script} (${config.mode}) exited 0 without its report line; stderr: ${JSON.stringify(stderr.slice(0, 500))}`,
    );
  }
  return MemoryChildReport.parse(JSON.parse(line));
}

const mib = (bytes: number): number => Math.max(bytes / MIB, GROWTH_FLOOR_MIB);

/** A row where lower is better: `ratio` is the median per-round baseline/value (still: higher ratio is better). */
function lowerIsBetterRow(
  name: string,
  unit: string,
  goal: number,
  values: readonly number[],
  baselines: readonly number[],
): BenchRow {
  const swapped = comparisonRow(name, unit, goal, baselines, values);
  return { ...swapped, value: swapped.baseline, baseline: swapped.value };
}

/**
 * Peak RSS growth of a process holding a runner while the runner runs a command printing
 * `outputBytes` (twice: the first command from a cold start, the second once warm),
 * against the same process reading the same output from a bare spawn itself. Every
 * measurement is a fresh child process, so one round cannot inherit another's heap.
 */
export async function measureRunnerMemory(
  sizes: MemorySizes,
  workdirBase: string,
  isolation: IsolationLevel | 'auto',
): Promise<{ rows: BenchRow[]; summary: string }> {
  let children = 0;
  const second: number[] = [];
  const before: number[] = [];
  const levels = new Set<string>();
  const methods = new Set<string>();
  const child = async (mode: MemoryChildConfig['mode'], commands: number) => {
    children += 1;
    const config = {
      mode,
      bytes: sizes.outputBytes,
      commands,
      workdir: `${workdirBase}-${children}`,
      isolation,
    };
    const report = await runMemoryChild(config);
    levels.add(report.isolation);
    methods.add(report.method);
    return report;
  };
  const variants: Variant[] = [
    {
      name: 'runner',
      run: async () => {
        const report = await child('runner', 2);
        second.push(mib(report.growthBytes[1]!));
        before.push(report.rssBeforeBytes[0]! / MIB);
        return mib(report.growthBytes[0]!);
      },
    },
    { name: 'bare', run: async () => mib((await child('bare', 1)).growthBytes[0]!) },
  ];
  const samples = await runInterleaved(variants, { rounds: sizes.rounds, warmupRounds: 0 });
  const runner = samples.runner!;
  const budget = runner.map(() => MEMORY_BUDGET_MIB);
  const label = sizeLabel(sizes.outputBytes);
  const fixed = (xs: readonly number[]) => median(xs).toFixed(1);
  const summary =
    `peak RSS growth (${[...methods].join(', ')}; isolation ${[...levels].join(', ')}): runner ${fixed(runner)} MiB ` +
    `on the first ${label}, ${fixed(second)} MiB on the second; bare node reader ${fixed(samples.bare!)} MiB; ` +
    `runner RSS before ${fixed(before)} MiB`;
  const vsBudget = `runner peak RSS growth vs ${MEMORY_BUDGET_MIB} MiB budget`;
  const rows = [
    lowerIsBetterRow(`${vsBudget}, first command printing ${label}`, 'MiB', 1, runner, budget),
    lowerIsBetterRow(`${vsBudget}, second command printing ${label}`, 'MiB', 1, second, budget),
    lowerIsBetterRow(
      `runner/bare node reader peak RSS growth, ${label} of stdout`,
      'MiB',
      BARE_READER_GOAL,
      runner,
      samples.bare!,
    ),
  ];
  return { rows, summary };
}
