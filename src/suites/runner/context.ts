import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type CheckEnv, TargetGone, TargetUnavailable } from '../../harness/check.js';
import { LeftoverLedger } from '../../harness/containment/index.js';
import { SharedWork } from '../../harness/shared-work.js';
import { joinWarnings, watchStrayMarkers } from '../../harness/stray-markers.js';
import { removeWorkDir, withLeftover } from '../../harness/work-dir.js';
import { quotedCommand } from '../target-secrets.js';
import { slowRunnerAllowanceMs } from './checks/common.js';
import { isRunnerMarker } from './cwd-markers.js';
import { startDefaultTimeoutSession } from './default-timeout.js';
import { toolUse } from './lines.js';
import { type MemoryReport, type MemorySampler, sampleRunnerMemory } from './memory.js';
import { cannotStart, preflightProblem } from './preflight.js';
import { canScanProcesses, stableMarkerText } from './processes.js';
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

/** A session as a check asks for it. */
export interface CaseSpec extends SessionSpec {
  /**
   * WIRECHECK_WORKDIR names a path below a regular file, which no runner can create: every
   * command of the session fails to start (Errors: process cannot be started).
   */
  readonly workdirBelowFile?: boolean;
}

export interface MeasuredRun {
  readonly run: SessionRun;
  readonly memory: MemoryReport | undefined;
}

/** The check that asks for a shared session: the session ends with its signal; it waits through `idle`. */
export type SessionAsker = Pick<CheckEnv, 'signal' | 'idle'>;

export interface RunnerCtx {
  readonly target: RunnerTarget;
  readonly canaries: Canaries;
  /**
   * Run one session in a fresh working directory (not created unless the spec has files).
   * Rejects with TargetGone when the runner command can no longer be started at all.
   */
  run(spec: CaseSpec): Promise<SessionRun>;
  /**
   * Like `run`, while sampling the memory of the runner's process group from /proc
   * (`memory` is undefined where there is no /proc to read).
   */
  measure(spec: CaseSpec): Promise<MeasuredRun>;
  /** fast-check runs of a runner-starting property in this tier. */
  commandRuns(env: { runs: number; full: boolean }): number;
  /** Values a failed runner-starting property still tries while shrinking. */
  readonly shrinkRuns: number;
  /**
   * A session run once per suite run and shared by the checks that judge it: the first check to
   * ask runs it; one that asks while it runs waits without its job slot (SharedWork).
   */
  shared<T>(key: string, asker: SessionAsker | undefined, make: () => Promise<T>): Promise<T>;
  /** Aborted when the suite closes: sessions started in the background end with it. */
  readonly closing: AbortSignal;
  /** What every runner process of the run left running when it ended (runner.processes.none-left). */
  readonly leftovers: LeftoverLedger;
}

/** Budget of the preflight session: an interpreter or a container may take a while to start. */
const PREFLIGHT_BUDGET_MS = 20_000;

/**
 * Open the suite: a folder for the cases' working directories (readable by any user, since
 * a runner may run its commands as an unprivileged one), the canaries, and a preflight: a
 * runner command that cannot be started, or that answers a plain tool_use with nothing
 * (or with something that is not a tool_result line), makes the target unavailable (exit
 * 2, no check counted). Then the one slow case, the runner's real default timeout of 20 s,
 * starts in the background so that it runs while the other checks do.
 */
export async function openRunner(
  target: RunnerTarget,
  options: RunnerSuiteOptions = {},
  /** The run's stop signal (an interrupt): the preflight and the background sessions end with it. */
  stop?: AbortSignal,
  /** The run's seed, which the canaries are derived from (absent: random canaries). */
  seed?: number,
): Promise<RunnerCtx & { close(): Promise<string | undefined> }> {
  // realpath: a runner that reports `pwd -P` must be comparable (macOS /tmp is a symlink).
  const root = realpathSync(mkdtempSync(join(tmpdir(), ROOT_PREFIX)));
  rootSuffixes.add(basename(root).slice(ROOT_PREFIX.length));
  const strayMarkers = watchStrayMarkers(isRunnerMarker, 'runner');
  chmodSync(root, 0o755);
  const tag = canaryTag(seed);
  const canaries: Canaries = {
    variable: 'WIRECHECK_RUNNER_CANARY',
    value: `wirecheck-canary-${tag}`,
    // Not the variable's value: an inherited PATH is environment.path's to judge, not a sighting of the variable.
    pathEntry: `/nonexistent/wirecheck-path-${tag}/bin`,
    user: `wirecheck-canary-user-${tag}`,
  };
  const baseEnv = runnerBaseEnv(options.baseEnv ?? process.env, canaries);
  const caseNames = new Set<string>();
  const sessions = new SharedWork();
  const closing = new AbortController();
  const onStop = () => closing.abort();
  stop?.addEventListener('abort', onStop, { once: true });
  const workdirOf = (spec: CaseSpec): string => {
    const dir = join(root, caseName(caseNames));
    if (spec.workdirBelowFile !== true) return dir;
    writeFileSync(dir, 'a regular file: nothing can be created below it\n', { mode: 0o644 });
    return join(dir, 'workdir');
  };
  const leftovers = new LeftoverLedger();
  /** Set once the preflight has timed the runner's first answer. */
  let allowanceMs = (_lines: number) => 0;
  const session = (spec: CaseSpec, workdir = workdirOf(spec), sampler?: MemorySampler) =>
    leftovers.track(
      `the session in ${workdir}`,
      runSession(
        target.runner,
        { ...spec, budgetMs: spec.budgetMs + allowanceMs(spec.lines.length) },
        {
          baseEnv,
          workdir,
          ...(sampler === undefined
            ? {}
            : { onOutput: () => sampler.firstOutput(), onStart: (pid: number) => sampler.started(pid) }),
        },
      ),
    );
  const gone = (result: SessionRun): void => {
    const problem = cannotStart(result);
    if (problem !== undefined) {
      const cause = `the runner command ${quotedCommand(target.runner)} ${problem}`;
      throw new TargetGone(cause, undefined, undefined, undefined, { sharedCause: cause });
    }
  };
  const run = async (spec: CaseSpec): Promise<SessionRun> => {
    const result = await session(spec);
    gone(result);
    return result;
  };
  const measure = async (spec: CaseSpec): Promise<MeasuredRun> => {
    const workdir = workdirOf(spec);
    const sampler = canScanProcesses() ? sampleRunnerMemory() : undefined;
    const result = await session(spec, workdir, sampler).finally(() => sampler?.stop());
    const memory = sampler?.stop();
    gone(result);
    return { run: result, memory };
  };
  const shared = <T>(key: string, asker: SessionAsker | undefined, make: () => Promise<T>): Promise<T> =>
    // Named after the key, not after whichever check happened to ask first.
    sessions.get(key, () => inCase(key, make), asker);

  const close = async () => {
    stop?.removeEventListener('abort', onStop);
    closing.abort();
    // Every session ends (its processes killed) once aborted; wait so nothing outlives close.
    await Promise.allSettled(sessions.all());
    return joinWarnings(strayMarkers.sweep(), removeWorkDir(root));
  };
  const probe = await inCase('preflight', () =>
    session({
      lines: [toolUse('echo wirecheck-probe')],
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: PREFLIGHT_BUDGET_MS,
      signal: closing.signal,
    }),
  );
  const problem = closing.signal.aborted ? undefined : preflightProblem(probe);
  if (problem !== undefined) {
    const left = await close();
    throw new TargetUnavailable(
      withLeftover(`the runner command ${quotedCommand(target.runner)} ${problem}`, left),
    );
  }
  const firstAnswerMs = probe.outputs[0]?.atMs ?? 0;
  allowanceMs = (lines) => slowRunnerAllowanceMs(firstAnswerMs, lines);
  const ctx: RunnerCtx = {
    target,
    canaries,
    run,
    measure,
    commandRuns: (env) =>
      Math.max(
        1,
        Math.min(env.runs, env.full ? (options.maxFullCommandRuns ?? 200) : (options.maxCommandRuns ?? 25)),
      ),
    shrinkRuns: options.maxShrinkRuns ?? 20,
    shared,
    closing: closing.signal,
    leftovers,
  };
  // Stopped while opening: the harness closes what it gets; start nothing more.
  if (!closing.signal.aborted) startDefaultTimeoutSession(ctx);
  return { ...ctx, close };
}

const ROOT_PREFIX = 'wirecheck-runner-suite-';

/**
 * The random part of every case folder this process made (mkdtemp's 6 characters), which reports
 * show as mkdtemp's template, XXXXXX. A few bytes per suite run, kept for the process's life: a
 * result may be scrubbed after its suite closed (a target-unavailable message).
 */
const rootSuffixes = new Set<string>();

/** The case a session belongs to: a check (its id) or a shared session (its key), with its sessions so far. */
interface CaseScope {
  readonly name: string;
  sessions: number;
}

const currentCase = new AsyncLocalStorage<CaseScope>();

/**
 * Run `body` as the case `name` (a check id, a shared session's key): the sessions it starts
 * get working directories named after it (`<name>`, then `<name>-2`...), the same in every
 * run with one seed whatever order the checks run in, where a counter over the whole run
 * depended on scheduling. Reports quote these directories.
 */
export function inCase<T>(name: string, body: () => Promise<T>): Promise<T> {
  return currentCase.run({ name, sessions: 0 }, body);
}

/** A directory name for the next session of the current case, not yet in `taken` (which it joins). */
function caseName(taken: Set<string>): string {
  const scope = currentCase.getStore();
  // Outside any case (a suite driven by hand): still unique, only not stable across runs.
  const base = scope === undefined ? 'session' : scope.name.replace(/[^\w.-]/g, '_');
  let n = scope === undefined ? taken.size + 1 : ++scope.sessions;
  let name = n === 1 ? base : `${base}-${n}`;
  while (taken.has(name)) name = `${base}-${++n}`;
  taken.add(name);
  return name;
}

/**
 * The canaries' tag: derived from the seed, so that reports quoting a leaked canary read the
 * same in every run with it. It need not be secret (the runner sees its own environment) nor
 * unique between runs (no scan looks for it; each run's sessions get their own environment).
 */
function canaryTag(seed: number | undefined): string {
  if (seed === undefined) return randomBytes(6).toString('hex');
  return createHash('sha256').update(`wirecheck runner canary ${seed}`).digest('hex').slice(0, 12);
}

/**
 * `text` as reports show it (the suite's scrubber): the random parts of what a run makes (the
 * name of the folder of its case directories, the digits of its process markers) replaced by
 * placeholders, so that two runs with one seed give the same report text. Checks judge the
 * real values; only the text changes.
 */
export function stableRunnerText(text: string): string {
  let shown = text;
  // Not a pattern around the folder's prefix: a quote clipped from a runner's stderr may begin
  // inside the path (`...unner-suite-4ZCEk1/`), and its random part must go all the same.
  for (const suffix of rootSuffixes) if (shown.includes(suffix)) shown = shown.replaceAll(suffix, 'XXXXXX');
  return stableMarkerText(shown);
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
