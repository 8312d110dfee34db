import {
  CommandLineError,
  commandLine,
  type Identity,
  type IsolationLevel,
  type Tools,
} from './command-line.js';
import { commandEnvironment } from './environment.js';
import type { ResourceLimits } from './limits.js';
import type { FifoPool } from './output-fifos.js';
import type { PrivateDir } from './private-dir.js';
import { type SpawnOutcome, spawnCommand } from './spawn-command.js';
import { prepareWorkdir, WorkdirError } from './workdir.js';

/** The fixed part of how commands are run, decided once when the runner starts. */
export interface Confinement {
  readonly level: IsolationLevel;
  readonly tools: Tools;
  readonly runAs: Identity | null;
  readonly limits: ResourceLimits | null;
  readonly tmpBytes: number;
  readonly masked: readonly string[];
  /** The seccomp filter against host Unix sockets (bwrap), or null where there is none. */
  readonly seccomp: Uint8Array | null;
  /** util-linux: the sandbox skeleton in the private directory (writeSandboxSkeleton). */
  readonly skeletonPath?: string | undefined;
  readonly graceMs: number;
  readonly drainMs: number;
}

export interface Execution {
  readonly workdir: string;
  readonly command: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly markerFd?: number | undefined;
  readonly afterExit?: (() => Promise<void>) | undefined;
  /** Where stdout's and stderr's FIFOs come from; absent, or none to be had: Node's pipes. */
  readonly fifos?: FifoPool | undefined;
}

/**
 * Runs one command in its working directory (created if absent) under the confinement:
 * the command goes to bash as a script (bwrap: through fd 3; otherwise a file in the
 * private directory), never as an argument, so its size is not bounded by the argv limit.
 */
export async function execute(
  confinement: Confinement,
  dir: PrivateDir,
  run: Execution,
): Promise<SpawnOutcome> {
  const started = performance.now();
  const failed = (reason: string): SpawnOutcome => ({
    kind: 'spawn-failed',
    reason,
    durationMs: Math.round(performance.now() - started),
  });
  try {
    await prepareWorkdir(run.workdir, confinement.runAs);
  } catch (error) {
    if (error instanceof WorkdirError) return failed(error.message);
    return failed(`cannot prepare the working directory ${run.workdir}: ${(error as Error).message}`);
  }
  const scriptPath = confinement.level === 'bwrap' ? '' : await dir.writeScript(run.command);
  try {
    const spec = commandLine({
      ...confinement,
      workdir: run.workdir,
      scriptPath,
      env: commandEnvironment(run.workdir),
    });
    return await spawnCommand({
      fifos: await run.fifos?.take(),
      spec,
      script: run.command,
      markerFd: run.markerFd,
      timeoutMs: run.timeoutMs,
      graceMs: confinement.graceMs,
      drainMs: confinement.drainMs,
      signal: run.signal,
      afterExit: run.afterExit,
    });
  } catch (error) {
    if (error instanceof CommandLineError) return failed(error.message);
    throw error;
  } finally {
    if (scriptPath !== '') await dir.removeFile(scriptPath);
  }
}
