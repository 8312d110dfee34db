import type { RunnerToolUse } from '../protocol/bash/index.js';
import {
  type BashRunner,
  commandEnvironment,
  commandLine,
  createBashRunner,
  type IsolationLevel,
  PRIVATE_TMP_BYTES,
  RunnerStartError,
} from '../runner/index.js';
import { createPrivateDir, type PrivateDir } from '../runner/private-dir.js';
import { hostDirsToMask } from '../runner/probe.js';
import { unixSocketFilterBytes } from '../runner/seccomp.js';
import { findTools } from '../runner/tools.js';
import { writeSandboxSkeleton } from '../runner/util-linux-setup.js';
import { prepareWorkdir } from '../runner/workdir.js';
import { BenchMismatchError, type Comparison } from './comparisons.js';
import type { Variant } from './interleave.js';
import { comparisonRow } from './rows.js';
import { spawnBashTrue, spawnCommandLine } from './runner-spawn.js';
import { median } from './stats.js';

/**
 * Goals of runner/bare spawn, per level. Each is 0.8 x the low end of what the level's own
 * command line, spawned bare, reached against a bare `bash -c true` (2026-11-21, 2 vCPU:
 * none 0.68-0.95, setpriv and prlimit before bash; bwrap 0.27-0.54, six namespaces and the
 * mounts; util-linux 0.06-0.15, a mount per mount point), rounded down. The isolation's own
 * price is accepted; the runner's own work per command should cost at most a quarter more.
 */
export const RATE_GOALS: Readonly<Record<IsolationLevel, number>> = {
  none: 0.5,
  bwrap: 0.2,
  'util-linux': 0.12,
};
/** runner/its command line spawned bare: the runner's own work per command (checks, files, leftovers, drain). */
export const OWN_WORK_GOAL = 0.8;

const COMMANDS_PER_S = 'commands/s';
const COMMAND = 'true';

/** One level's comparison, ready to run interleaved; `close` ends the runner and removes its files. */
export interface RateBench {
  readonly comparison: Comparison;
  /** Milliseconds per command of each variant (medians), as a printable line. */
  summary(samples: Readonly<Record<string, number[]>>): string;
  close(): Promise<void>;
}

function timedLoop(name: string, commands: number, once: () => Promise<void>): Variant {
  return {
    name,
    run: async () => {
      const start = performance.now();
      for (let i = 0; i < commands; i++) await once();
      return commands / ((performance.now() - start) / 1000);
    },
  };
}

function exitedZero(name: string, code: number): void {
  if (code !== 0) throw new BenchMismatchError(`${name}: expected \`${COMMAND}\` to exit 0, got ${code}`);
}

function runnerVariant(runner: BashRunner, commands: number): Variant {
  let n = 0;
  return timedLoop('runner', commands, async () => {
    n += 1;
    const use: RunnerToolUse = {
      type: 'tool_use',
      id: `toolu_bench_${n}`,
      name: 'bash',
      input: { command: COMMAND },
    };
    const report = await runner.run(use);
    if (report.outcome !== 'ran' || report.exitCode !== 0 || report.result.is_error) {
      throw new BenchMismatchError(
        `runner: expected \`${COMMAND}\` to run and exit 0, got ${report.outcome}, exit ${report.exitCode}: ${report.result.content}`,
      );
    }
  });
}

/** The exact command line the runner spawns for `true` at its level (same tools, uid, limits, masks). */
async function bareCommandLine(
  runner: BashRunner,
  workdir: string,
  dir: PrivateDir,
): Promise<() => Promise<void>> {
  const { level, runAs, limits } = runner.isolation;
  await prepareWorkdir(workdir, runAs);
  const spec = commandLine({
    level,
    workdir,
    // The runner writes a script file per command (bwrap: through fd 3); here one file serves every run.
    scriptPath: level === 'bwrap' ? '' : await dir.writeScript(COMMAND),
    ...(level === 'util-linux' && { skeletonPath: await writeSandboxSkeleton(dir.path) }),
    env: commandEnvironment(workdir),
    runAs,
    limits,
    tmpBytes: PRIVATE_TMP_BYTES,
    masked: await hostDirsToMask(),
    seccomp: unixSocketFilterBytes() ?? null,
    tools: await findTools(),
  });
  return async () => exitedZero('its command line spawned bare', await spawnCommandLine(spec, COMMAND));
}

const msPer = (perS: readonly number[]): string => `${(1000 / median(perS)).toFixed(1)} ms`;

/**
 * The runner at `level` running `true` `commands` times in a row, against a bare
 * `spawn('bash', ['-c', 'true'])` detached and not, and against its own command line
 * spawned bare; or why the level cannot run here.
 */
export async function runnerRateBench(
  level: IsolationLevel,
  workdir: string,
  commands: number,
): Promise<RateBench | { skipped: string }> {
  let runner: BashRunner;
  try {
    runner = await createBashRunner({ workdir, isolation: level });
  } catch (error) {
    if (error instanceof RunnerStartError) return { skipped: error.message };
    throw error;
  }
  const dir = await createPrivateDir();
  const close = async () => {
    await runner.close();
    await dir.remove();
  };
  let commandLineOnce: () => Promise<void>;
  try {
    commandLineOnce = await bareCommandLine(runner, `${workdir}-bare`, dir);
  } catch (error) {
    await close();
    throw error;
  }
  const shape = `${commands} x ${COMMAND} in sequence, isolation ${level}`;
  const goal = RATE_GOALS[level];
  return {
    comparison: {
      title: `runner vs bare spawn, ${shape}`,
      variants: [
        runnerVariant(runner, commands),
        timedLoop('bare-detached', commands, async () => exitedZero('bare spawn', await spawnBashTrue(true))),
        timedLoop('bare', commands, async () => exitedZero('bare spawn', await spawnBashTrue(false))),
        timedLoop('command-line', commands, commandLineOnce),
      ],
      rows: (s) => [
        comparisonRow(
          `runner/bare spawn (detached), ${shape}`,
          COMMANDS_PER_S,
          goal,
          s.runner!,
          s['bare-detached']!,
        ),
        comparisonRow(`runner/bare spawn (not detached), ${shape}`, COMMANDS_PER_S, goal, s.runner!, s.bare!),
        comparisonRow(
          `runner/its command line spawned bare, ${shape}`,
          COMMANDS_PER_S,
          OWN_WORK_GOAL,
          s.runner!,
          s['command-line']!,
        ),
      ],
    },
    summary: (s) =>
      `isolation ${level}: runner ${msPer(s.runner!)} per command; bare spawn ${msPer(s['bare-detached']!)} ` +
      `detached, ${msPer(s.bare!)} not detached; its command line spawned bare ${msPer(s['command-line']!)}`,
    close,
  };
}
