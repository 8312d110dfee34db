import { WIRECHECK_BLAMED } from './check.js';
import type { RunStop } from './results.js';
import { exitCodeOfSignal, INTERRUPT_SIGNALS, type InterruptSignal, interruptStop } from './stop.js';

/** The part of `process` a guard listens to (a fake emitter in tests). */
export interface GuardedProcess {
  // biome-ignore lint/suspicious/noExplicitAny: the shape of process.on / EventEmitter.on
  on(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: the shape of process.off / EventEmitter.off
  off(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * Watches a run from outside: SIGINT/SIGTERM/SIGHUP and any error nobody caught (an uncaught
 * exception, an unhandled rejection: a bug of a suite or of wirecheck) stop it, through
 * `signal`, whose reason is the RunStop. A signal once the run is stopping ends the program
 * at once.
 */
export interface RunGuard {
  /** Aborted with the RunStop as its reason. */
  readonly signal: AbortSignal;
  /** The first stop, once there is one. */
  readonly stop: RunStop | undefined;
  /** Every uncaught error seen (the first one stopped the run). */
  readonly harnessErrors: readonly unknown[];
  /** Stop listening: the default behaviour of the signals and of uncaught errors is back. */
  dispose(): void;
}

export interface RunGuardOptions {
  /**
   * A second signal while the first is being handled: end now. `code` is the status the signal
   * stands for (130 for SIGINT); the process ends best by `signal` itself (processRunGuard).
   */
  exitNow(code: number, signal: InterruptSignal): void;
}

/** The text of an uncaught error, its stack when it has one. */
export function describeUncaught(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

export function guardRun(proc: GuardedProcess, options: RunGuardOptions): RunGuard {
  const controller = new AbortController();
  let stop: RunStop | undefined;
  const errors: unknown[] = [];
  const stopWith = (s: RunStop) => {
    if (stop !== undefined) return;
    stop = s;
    controller.abort(s);
  };
  const onSignal = (name: InterruptSignal) => () => {
    // The run is already stopping: a second signal means "now".
    if (stop !== undefined) {
      options.exitNow(exitCodeOfSignal(name), name);
      return;
    }
    stopWith(interruptStop(name));
  };
  const signalListeners = INTERRUPT_SIGNALS.map((name) => [name, onSignal(name)] as const);
  const onError = (error: unknown) => {
    errors.push(error);
    const first = describeUncaught(error).split('\n')[0] ?? '';
    stopWith({
      kind: 'harness-error',
      message: `wirecheck failed (${WIRECHECK_BLAMED}): ${first}`,
    });
  };
  for (const [name, listener] of signalListeners) proc.on(name, listener);
  proc.on('uncaughtException', onError);
  proc.on('unhandledRejection', onError);
  return {
    signal: controller.signal,
    get stop() {
      return stop;
    },
    harnessErrors: errors,
    dispose() {
      for (const [name, listener] of signalListeners) proc.off(name, listener);
      proc.off('uncaughtException', onError);
      proc.off('unhandledRejection', onError);
    },
  };
}
