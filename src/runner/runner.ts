import { resolve } from 'node:path';
import {
  type BashToolResult,
  blockedSubstring,
  DEFAULT_TIMEOUT_S,
  type InputLine,
  invalidLineResult,
  KILL_GRACE_MS,
  parseToolUseLine,
  type RunnerToolUse,
  refusalText,
  restartText,
  resultContent,
  spawnFailureText,
  toolResult,
} from '../protocol/bash/index.js';
import type { Identity, IsolationLevel } from './command-line.js';
import { type Confinement, execute } from './execute.js';
import { DEFAULT_LIMITS, DRAIN_MS, PRIVATE_TMP_BYTES, type ResourceLimits } from './limits.js';
import { FifoPool } from './output-fifos.js';
import { createPrivateDir, type PrivateDir } from './private-dir.js';
import { candidateLevels, effectiveLimits, hostDirsToMask, probeLevel } from './probe.js';
import { unixSocketFilterBytes } from './seccomp.js';
import { BashSession, type SessionInfo } from './session.js';
import { findTools, type ToolOverrides } from './tools.js';
import { writeSandboxSkeleton } from './util-linux-setup.js';
import { unsafeWorkdir } from './workdir.js';

/** What a user can do when no isolating level works: said when the runner refuses to start. */
export const HOW_TO_ISOLATE =
  'To isolate commands, install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) ' +
  'where unprivileged user namespaces are allowed (Ubuntu 24.04 restricts them: sysctl kernel.apparmor_restrict_unprivileged_userns=0), ' +
  'or run as root so that util-linux (unshare, setpriv) can build the sandbox. ' +
  'To run commands without isolation, pass --isolation none: a command can then read and change whatever this user can, ' +
  'and reach the network (docs/runner.md, "Isolation none").';

/** The uid and gid `nobody`: where the runner drops to when started as root. */
export const UNPRIVILEGED: Identity = { uid: 65534, gid: 65534 };

export interface BashRunnerOptions {
  /** The dedicated working directory (created if absent). */
  readonly workdir: string;
  /** Per-command timeout in seconds (default 20). */
  readonly timeoutS?: number | undefined;
  /**
   * `auto` (default): the strongest isolating level that works here (bwrap, util-linux);
   * the runner refuses to start when neither does. `none` runs commands without
   * namespaces and must be asked for by name.
   */
  readonly isolation?: IsolationLevel | 'auto' | undefined;
  /** Who commands run as. Default: `nobody` (65534:65534) when the runner is root, else the runner's own uid. */
  readonly runAs?: Identity | null | undefined;
  readonly limits?: ResourceLimits | undefined;
  /** Paths of bash, bwrap, prlimit, unshare, setpriv; null: act as if not installed. */
  readonly tools?: ToolOverrides | undefined;
  readonly graceMs?: number | undefined;
  readonly drainMs?: number | undefined;
  readonly tmpBytes?: number | undefined;
  /** One line per event (start-up, each command); the CLI sends them to stderr. */
  readonly log?: ((line: string) => void) | undefined;
}

/** The isolation in force, decided by the start-up probe. */
export interface IsolationInfo {
  readonly level: IsolationLevel;
  readonly runAs: Identity | null;
  readonly limits: ResourceLimits | null;
  /** Why each stronger level was not used. */
  readonly fallbacks: readonly string[];
}

export type RunOutcomeKind = 'ran' | 'timed-out' | 'refused' | 'spawn-failed' | 'invalid-input' | 'restarted';

/** The result block with what the contract line leaves out (the metadata of the run). */
export interface RunReport {
  readonly result: BashToolResult;
  readonly outcome: RunOutcomeKind;
  /** The shell's exit code; -1 on timeout, 1 when the process could not start, null when nothing ran. */
  readonly exitCode: number | null;
  readonly isolation: IsolationLevel;
  readonly durationMs: number;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly truncated: boolean;
  readonly session: SessionInfo;
}

export interface BashRunner {
  readonly isolation: IsolationInfo;
  readonly session: SessionInfo;
  /** Runs one tool_use to its result. Calls are served one at a time, in call order. */
  run(toolUse: RunnerToolUse, options?: { signal?: AbortSignal }): Promise<RunReport>;
  /** One line of the JSON Lines contract: a result for it whatever it holds. */
  runLine(line: InputLine, options?: { signal?: AbortSignal }): Promise<RunReport>;
  /** Discards the session (what `restart: true` does). */
  restart(): Promise<void>;
  /** Kills what is left and removes the runner's private files. */
  close(): Promise<void>;
}

/** The runner could not start with the isolation asked for. */
export class RunnerStartError extends Error {
  override readonly name = 'RunnerStartError';
}

/** A run stopped by its abort signal: there is no result to give. */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
}

export function describeIsolation(info: IsolationInfo): string {
  const who = info.runAs === null ? 'own uid' : `uid ${info.runAs.uid}, gid ${info.runAs.gid}`;
  const limits =
    info.limits === null
      ? 'no resource limits (prlimit not found)'
      : `limits nproc=${info.limits.processes} nofile=${info.limits.openFiles} fsize=${info.limits.fileSizeBytes} core=0`;
  return `isolation ${info.level} (${who}; ${limits})`;
}

function checkTimeout(timeoutS: number): number {
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) {
    throw new RunnerStartError(`the timeout must be a positive number of seconds, got ${timeoutS}`);
  }
  return timeoutS;
}

/**
 * Starts the reference bash runner: finds its tools, probes the isolation levels strongest
 * first (or only the one asked for) and keeps the first that works.
 */
export async function createBashRunner(options: BashRunnerOptions): Promise<BashRunner> {
  const timeoutS = checkTimeout(options.timeoutS ?? DEFAULT_TIMEOUT_S);
  const workdir = resolve(options.workdir);
  const unsafe = unsafeWorkdir(workdir);
  if (unsafe !== undefined) throw new RunnerStartError(unsafe);
  const log = options.log ?? (() => {});
  const root = process.getuid?.() === 0;
  const runAs = options.runAs !== undefined ? options.runAs : root ? UNPRIVILEGED : null;
  const tools = await findTools(options.tools);
  const limits = tools.prlimit === undefined ? null : await effectiveLimits(options.limits ?? DEFAULT_LIMITS);
  const base = {
    tools,
    runAs,
    limits,
    tmpBytes: options.tmpBytes ?? PRIVATE_TMP_BYTES,
    masked: await hostDirsToMask(),
    seccomp: unixSocketFilterBytes() ?? null,
    graceMs: options.graceMs ?? KILL_GRACE_MS,
    drainMs: options.drainMs ?? DRAIN_MS,
  };
  const { levels, skipped } = candidateLevels(options.isolation ?? 'auto', {
    bwrap: tools.bwrap !== undefined,
    unshare: tools.unshare !== undefined,
    setpriv: tools.setpriv !== undefined,
    root: root && runAs !== null,
  });
  const dir = await createPrivateDir();
  const fallbacks = [...skipped];
  let chosen: Confinement | undefined;
  for (const level of levels) {
    let confinement: Confinement = { ...base, level };
    let problem: string | undefined;
    if (level === 'util-linux') {
      try {
        confinement = { ...confinement, skeletonPath: await writeSandboxSkeleton(dir.path) };
      } catch (error) {
        problem = `cannot write the sandbox skeleton in ${dir.path}: ${(error as Error).message}`;
      }
    }
    problem ??= await probeLevel(confinement, dir);
    if (problem === undefined) {
      chosen = confinement;
      break;
    }
    fallbacks.push(`${level}: ${problem}`);
  }
  if (chosen === undefined) {
    await dir.remove();
    const requested = options.isolation ?? 'auto';
    throw new RunnerStartError(
      `no isolation level works here: ${fallbacks.join('; ')}.${requested === 'auto' || requested === 'bwrap' || requested === 'util-linux' ? ` ${HOW_TO_ISOLATE}` : ''}`,
    );
  }
  const isolation: IsolationInfo = { level: chosen.level, runAs, limits, fallbacks };
  for (const line of fallbacks) log(`not used: ${line}`);
  log(describeIsolation(isolation));
  const session = await BashSession.open(dir, chosen.level, runAs?.uid ?? process.getuid?.() ?? 0);
  return new Runner(chosen, dir, session, isolation, timeoutS, workdir, log);
}

class Runner implements BashRunner {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #fifos: FifoPool;

  constructor(
    readonly confinement: Confinement,
    readonly dir: PrivateDir,
    readonly sessionState: BashSession,
    readonly isolation: IsolationInfo,
    readonly timeoutS: number,
    readonly workdir: string,
    readonly log: (line: string) => void,
  ) {
    this.#fifos = new FifoPool(dir.path);
  }

  get session(): SessionInfo {
    return this.sessionState.info;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(task, task);
    this.#queue = next.catch(() => {});
    return next;
  }

  run(toolUse: RunnerToolUse, options: { signal?: AbortSignal } = {}): Promise<RunReport> {
    return this.#serial(() => this.#run(toolUse, options.signal));
  }

  runLine(line: InputLine, options: { signal?: AbortSignal } = {}): Promise<RunReport> {
    const parsed = parseToolUseLine(line);
    if (parsed.ok) return this.run(parsed.toolUse, options);
    return this.#serial(async () => {
      const report = this.#report(invalidLineResult(parsed), 'invalid-input', null, 0);
      this.log(`line with id ${JSON.stringify(parsed.toolUseId)}: invalid input: ${parsed.problem}`);
      return report;
    });
  }

  restart(): Promise<void> {
    return this.#serial(() => this.sessionState.restart());
  }

  close(): Promise<void> {
    return this.#serial(async () => {
      await this.sessionState.close();
      await this.#fifos.close();
      await this.dir.remove();
    });
  }

  #report(
    result: BashToolResult,
    outcome: RunOutcomeKind,
    exitCode: number | null,
    durationMs: number,
    extra: { stdoutBytes?: number; stderrBytes?: number; truncated?: boolean } = {},
  ): RunReport {
    return {
      result,
      outcome,
      exitCode,
      isolation: this.isolation.level,
      durationMs,
      stdoutBytes: extra.stdoutBytes ?? 0,
      stderrBytes: extra.stderrBytes ?? 0,
      truncated: extra.truncated ?? false,
      session: this.sessionState.info,
    };
  }

  async #run(toolUse: RunnerToolUse, signal: AbortSignal | undefined): Promise<RunReport> {
    const report = await this.#outcome(toolUse, signal);
    this.log(
      `${toolUse.id}: ${report.outcome}, exit ${report.exitCode ?? '-'} in ${report.durationMs} ms ` +
        `(isolation ${report.isolation}; stdout ${report.stdoutBytes} B, stderr ${report.stderrBytes} B` +
        `${report.truncated ? ', truncated' : ''})`,
    );
    return report;
  }

  async #outcome(toolUse: RunnerToolUse, signal: AbortSignal | undefined): Promise<RunReport> {
    const { id, input } = toolUse;
    if (input.restart === true) {
      await this.sessionState.restart();
      if (input.command === undefined)
        return this.#report(toolResult(id, restartText(), false), 'restarted', null, 0);
    }
    const command = input.command ?? '';
    const blocked = blockedSubstring(command);
    if (blocked !== undefined)
      return this.#report(toolResult(id, refusalText(blocked), true), 'refused', null, 0);
    if (command.includes('\0')) {
      const text = spawnFailureText('the command contains a NUL byte, which no shell command can hold');
      return this.#report(toolResult(id, text, true), 'spawn-failed', 1, 0);
    }
    const outcome = await execute(this.confinement, this.dir, {
      workdir: this.workdir,
      command,
      timeoutMs: this.timeoutS * 1000,
      signal,
      markerFd: this.sessionState.markerFd,
      fifos: this.#fifos,
      afterExit: async () => {
        await this.sessionState.killLeftovers();
      },
    });
    this.sessionState.commandRan();
    if (outcome.kind === 'aborted') throw new RunAbortedError(`the run of ${id} was aborted`);
    if (outcome.kind === 'spawn-failed') {
      return this.#report(
        toolResult(id, spawnFailureText(outcome.reason), true),
        'spawn-failed',
        1,
        outcome.durationMs,
      );
    }
    const content = resultContent({
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      exitCode: outcome.exitCode,
      timedOutAfterS: outcome.timedOut ? this.timeoutS : undefined,
    });
    return this.#report(
      toolResult(id, content.content, content.isError),
      outcome.timedOut ? 'timed-out' : 'ran',
      outcome.timedOut ? -1 : outcome.exitCode,
      outcome.durationMs,
      {
        stdoutBytes: outcome.stdout.totalBytes,
        stderrBytes: outcome.stderr.totalBytes,
        truncated: content.truncated,
      },
    );
  }
}
