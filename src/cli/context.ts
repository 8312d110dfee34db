import type { Readable } from 'node:stream';
import { killAllContainedTargets } from '../harness/containment/registry.js';
import { guardRun, type RunGuard } from '../harness/run-guard.js';
import { INTERRUPT_SIGNALS, type InterruptSignal } from '../harness/stop.js';
import { releaseHeldLocksSync } from '../reporters/report-lock.js';
import type { PacedOutput } from '../transports/output-pace.js';
import type { RunAgentCommand } from './agent.js';
import type { RunMessagesClientCommand } from './messages-client.js';
import type { ProbeToolServerCommand } from './probe.js';
import type { RunBashService } from './run-bash-action.js';
import type { StartMockMessagesService } from './serve-messages.js';
import type { ServeTools } from './serve-tools.js';
import type { RunToolClientCommand } from './tool-client.js';
import { resumeWorkflowCommandsNow } from './workflow-resume.js';

/** Where output goes: process.stdout/stderr in production, string buffers in tests. */
export interface OutputStream extends PacedOutput<string | Uint8Array> {
  /** Text, or bytes passed through as they are (a relay's). */
  write(chunk: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
  /** Width of the terminal, when it is one. */
  readonly columns?: number;
}

/** Aborted on SIGINT/SIGTERM/SIGHUP; `dispose` restores the default signal behaviour. */
export interface Shutdown {
  readonly signal: AbortSignal;
  dispose(): void;
}

/** Resolves once `shutdown` fires (at once if it has): a `serve` or `record` command runs until then. */
export function untilShutdown(shutdown: Shutdown): Promise<void> {
  return new Promise((resolve) => {
    if (shutdown.signal.aborted) resolve();
    else shutdown.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Implementations the CLI serves or wraps. Commands whose implementation is absent are not
 * registered, so the CLI compiles and runs before those modules exist.
 */
export interface CliDeps {
  readonly startMockMessagesService?: StartMockMessagesService;
  readonly runMessagesClientCommand?: RunMessagesClientCommand;
  readonly runAgentCommand?: RunAgentCommand;
  readonly runBashService?: RunBashService;
  /** The reference tool client behind `tool-client`. */
  readonly runToolClientCommand?: RunToolClientCommand;
  /** The SSE tool-server health probe behind `probe`. */
  readonly probeToolServer?: ProbeToolServerCommand;
  /** The reference MCP tool server behind `serve tools`. */
  readonly serveTools?: ServeTools;
}

/** Everything a command touches outside the library. */
export interface CliContext {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin: Readable | AsyncIterable<string | Uint8Array>;
  readonly env: NodeJS.ProcessEnv;
  readonly deps: CliDeps;
  /** Installed only by long-running commands (serve, messages-client): Ctrl-C elsewhere keeps its default. */
  onShutdown(): Shutdown;
  /**
   * Watch a suite run (`test`, `all`): SIGINT/SIGTERM/SIGHUP and uncaught errors stop it through
   * the guard's signal. Absent: the process's own (processRunGuard).
   */
  guardRun?(): CliRunGuard;
}

/** A RunGuard the CLI hands back with the run's exit status when the run is over. */
export interface CliRunGuard extends RunGuard {
  release(exitCode: number): void;
}

/** How long a stopped run waits for its abandoned work before the process ends anyway. */
const EXIT_GRACE_MS = 250;

/**
 * Ends the process now, by `signal` itself: the second signal of a stopping run. Not
 * process.exit: it waits for libuv's thread pool, and a call blocked there (an open() of a
 * FIFO nobody reads) held a run past two Ctrl-C for ever; the signal's default action waits
 * for nothing. No 'exit' handler runs on such a death, so the contained targets are killed
 * here first (synchronously); the reaper removes what they leave (containment/reaper.ts).
 */
export function endBySignal(signal: InterruptSignal, code: number): void {
  killAllContainedTargets();
  releaseHeldLocksSync();
  // Else the GitHub Actions runner obeys no workflow command for the rest of the step.
  resumeWorkflowCommandsNow();
  // Any listener left would turn the default action back into an event nobody acts on.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  // Reached only if the signal is not delivered at once (Node resets dispositions at start).
  process.exit(code);
}

/**
 * The guard of a real run: on the process's signals and uncaught errors. Once a stopped
 * run has written its reports, the process ends with the run's status even if an abandoned
 * check (one that ignored its abort signal) still holds a timer or a socket: an unref'd
 * timer ends it, so a process with nothing left ends sooner by itself.
 */
export function processRunGuard(): CliRunGuard {
  const guard = guardRun(process, { exitNow: (code, signal) => endBySignal(signal, code) });
  return {
    get signal() {
      return guard.signal;
    },
    get stop() {
      return guard.stop;
    },
    get harnessErrors() {
      return guard.harnessErrors;
    },
    dispose: () => guard.dispose(),
    release(exitCode) {
      if (guard.stop === undefined) {
        guard.dispose();
        return;
      }
      // Stay guarded (late errors of abandoned work are not news; a signal now exits at once).
      setTimeout(() => process.exit(exitCode), EXIT_GRACE_MS).unref();
    },
  };
}

/**
 * SIGINT, SIGTERM and SIGHUP (a closed terminal) stop the command. Once a stopped command is
 * over (`dispose`), the process ends with its status even if output its reader no longer takes
 * is still queued (a stdio relay whose client stopped reading and then stopped it): an unref'd
 * timer, so a process with nothing left ends sooner by itself.
 */
export function processShutdown(): Shutdown {
  const controller = new AbortController();
  const stop = () => controller.abort();
  for (const signal of INTERRUPT_SIGNALS) process.once(signal, stop);
  return {
    signal: controller.signal,
    dispose() {
      for (const signal of INTERRUPT_SIGNALS) process.off(signal, stop);
      if (controller.signal.aborted) {
        setTimeout(
          () => process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0),
          EXIT_GRACE_MS,
        ).unref();
      }
    },
  };
}

export function processContext(deps: CliDeps): CliContext {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    deps,
    onShutdown: processShutdown,
    guardRun: processRunGuard,
  };
}
