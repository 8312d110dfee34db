import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';

/**
 * A target process the spawner started (spawner.ts): the part of a ChildProcess the harness
 * uses, with the same events in the same order: 'spawn'; 'error' (a start that failed: pid
 * undefined); 'exit' (code, signal); 'close' once it has exited and its stdout and stderr
 * have closed.
 */
export class SpawnedChild extends EventEmitter {
  pid: number | undefined;
  stdin: Socket | null = null;
  stdout: Socket | null = null;
  stderr: Socket | null = null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private openOutputs = 2;
  private exited = false;

  get stdio(): [Socket | null, Socket | null, Socket | null] {
    return [this.stdin, this.stdout, this.stderr];
  }

  /** A signal to the process itself (not its group), as ChildProcess.kill: false when it cannot be sent. */
  kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
    if (this.pid === undefined || this.exited) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** The three pipes have arrived: the process runs. */
  attach(pid: number, stdin: Socket, stdout: Socket, stderr: Socket): void {
    this.pid = pid;
    this.stdin = stdin;
    this.stdout = stdout;
    this.stderr = stderr;
    for (const stream of [stdout, stderr]) stream.once('close', () => this.outputClosed());
    this.emit('spawn');
  }

  exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
    this.maybeClose();
  }

  private outputClosed(): void {
    this.openOutputs -= 1;
    this.maybeClose();
  }

  private maybeClose(): void {
    if (this.exited && this.openOutputs === 0) this.emit('close', this.exitCode, this.signalCode);
  }
}
