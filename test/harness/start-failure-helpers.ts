import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { HarnessBug } from '../../src/harness/check.js';
import type { ContainedTarget } from '../../src/harness/containment/index.js';

/** A spawn error as Node.js reports it: an errno `code` and the `syscall` that failed. */
export function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${syscall} ${code}`), { code, syscall, errno: -1 });
}

/** A target whose process never started: its child has no pid and emits `error`, as spawn's does. */
export function neverStarted(error: Error): ContainedTarget {
  const child = Object.assign(new EventEmitter(), {
    pid: undefined,
    stdin: null,
    stdout: null,
    stderr: null,
  });
  setImmediate(() => child.emit('error', error));
  return {
    child: child as unknown as ChildProcess,
    method: 'tag',
    tag: 'never-started',
    signalGroup() {},
    escapees: () => [],
    close: async () => [],
    killNow() {},
  };
}

/** A matcher for toSatisfy: a HarnessBug that `cause` is the cause of. */
export function harnessBugFrom(cause: unknown): (e: unknown) => boolean {
  return (e) => e instanceof HarnessBug && e.cause === cause;
}
