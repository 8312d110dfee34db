import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TargetUnavailable } from '../../harness/check.js';
import { toolUse } from './lines.js';
import { runSession, type SessionRun, type SessionSpec } from './session.js';
import type { RunnerTarget } from './target.js';

/** Tuning of the suite itself (not of the target). */
export interface RunnerSuiteOptions {
  /** Cap on fast-check runs of a property that starts the runner once per run, quick tier (default 25). */
  readonly maxCommandRuns?: number;
  /** The same cap with --full (default 200). */
  readonly maxFullCommandRuns?: number;
  /** Values a failed property still tries while shrinking, each one a runner start (default 20). */
  readonly maxShrinkRuns?: number;
  /** Environment the runner's own is built from (default process.env). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * Values planted in the runner's own environment. A runner that restricts the
 * environment of its commands (Runner contract 2) shows none of them to a command.
 */
export interface Canaries {
  /** Name and value of a variable set for the runner only. */
  readonly variable: string;
  readonly value: string;
  /** A directory put first on the runner's PATH (it does not exist). */
  readonly pathEntry: string;
  /** The runner's USER. */
  readonly user: string;
}

/** WIRECHECK_TIMEOUT_S of ordinary cases: far above what their commands need. */
export const ORDINARY_TIMEOUT_S = 10;

export interface RunnerCtx {
  readonly target: RunnerTarget;
  readonly canaries: Canaries;
  /** Run one session in a fresh working directory (not created unless the spec has files). */
  run(spec: SessionSpec): Promise<SessionRun>;
  /** fast-check runs of a runner-starting property in this tier. */
  commandRuns(env: { runs: number; full: boolean }): number;
  /** Values a failed runner-starting property still tries while shrinking. */
  readonly shrinkRuns: number;
  /** A session run once per suite run and shared by the checks that judge it. */
  shared<T>(key: string, make: () => Promise<T>): Promise<T>;
}

/**
 * Open the suite: a folder for the cases' working directories (readable by any user, since
 * a runner may run its commands as an unprivileged one), the canaries, and one probe: a
 * runner command that cannot be started at all makes the target unavailable.
 */
export async function openRunner(
  target: RunnerTarget,
  options: RunnerSuiteOptions = {},
): Promise<RunnerCtx & { close(): Promise<void> }> {
  // realpath: a runner that reports `pwd -P` must be comparable (macOS /tmp is a symlink).
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'wirecheck-runner-suite-')));
  chmodSync(root, 0o755);
  const tag = randomBytes(6).toString('hex');
  const canaries: Canaries = {
    variable: 'WIRECHECK_RUNNER_CANARY',
    value: `wirecheck-canary-${tag}`,
    pathEntry: `/nonexistent/wirecheck-canary-${tag}/bin`,
    user: `wirecheck-canary-user-${tag}`,
  };
  const baseEnv = runnerBaseEnv(options.baseEnv ?? process.env, canaries);
  let cases = 0;
  const memo = new Map<string, Promise<unknown>>();
  const run = (spec: SessionSpec) =>
    runSession(target.runner, spec, { baseEnv, workdir: join(root, `case-${++cases}`) });

  const close = async () => {
    rmSync(root, { recursive: true, force: true, maxRetries: 2 });
  };
  const probe = await run({
    lines: [toolUse('echo wirecheck-probe')],
    timeoutS: ORDINARY_TIMEOUT_S,
    budgetMs: 20_000,
  });
  const problem = startProblem(probe);
  if (problem !== undefined) {
    await close();
    throw new TargetUnavailable(`the runner command ${JSON.stringify(target.runner)} ${problem}`);
  }
  return {
    target,
    canaries,
    run,
    commandRuns: (env) =>
      Math.max(
        1,
        Math.min(env.runs, env.full ? (options.maxFullCommandRuns ?? 200) : (options.maxCommandRuns ?? 25)),
      ),
    shrinkRuns: options.maxShrinkRuns ?? 20,
    shared<T>(key: string, make: () => Promise<T>): Promise<T> {
      let promise = memo.get(key) as Promise<T> | undefined;
      if (promise === undefined) {
        promise = make();
        memo.set(key, promise);
      }
      return promise;
    },
    close,
  };
}

/** wirecheck's environment without its own WIRECHECK_ variables, plus the canaries. */
export function runnerBaseEnv(
  base: Readonly<Record<string, string | undefined>>,
  canaries: Canaries,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || name.startsWith('WIRECHECK_')) continue;
    env[name] = value;
  }
  env[canaries.variable] = canaries.value;
  env.PATH = env.PATH ? `${canaries.pathEntry}:${env.PATH}` : `${canaries.pathEntry}:/usr/bin:/bin`;
  env.USER = canaries.user;
  return env;
}

/** Why a probe shows the command cannot be started at all; undefined when it answered or at least ran. */
function startProblem(run: SessionRun): string | undefined {
  if (run.spawnError) return `could not be started: ${run.spawnError.message}`;
  // sh's own statuses: 126 found but not executable, 127 not found.
  if ((run.exitCode === 126 || run.exitCode === 127) && run.outputs.length === 0) {
    const stderr = run.stderr.trim();
    return `could not be started by sh -c (exit ${run.exitCode}${stderr === '' ? '' : `; stderr: ${stderr.slice(-400)}`})`;
  }
  return undefined;
}
