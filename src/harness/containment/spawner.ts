import { type ChildProcess, spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { waitAtMost } from '../wait-at-most.js';
import { isAlive } from './procfs.js';
import { SpawnedChild } from './spawned-child.js';
import { SPAWNER_SCRIPT } from './spawner-script.js';

/** What a start asks of the spawner: always `detached` (its own session and group) with three pipes. */
export interface SpawnRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string | undefined;
}

/** The spawner went away before it answered: the start was not made (or its process is lost). */
export class SpawnerLost extends Error {
  constructor(what: string) {
    super(`the spawner process ended before ${what}`);
    this.name = 'SpawnerLost';
  }
}

type Failure = { message: string; code?: string; errno?: number; syscall?: string; path?: string };
type Message =
  | { id: number; kind: 'thrown' | 'failed'; error: Failure }
  | { id: number; kind: 'stdin' | 'stdout' | 'stderr'; pid: number }
  | { id: number; kind: 'exit'; code: number | null; signal: NodeJS.Signals | null };

interface Pending {
  readonly child: SpawnedChild;
  readonly resolve: (child: SpawnedChild) => void;
  readonly reject: (error: Error) => void;
  pid?: number;
  stdin?: Socket;
  stdout?: Socket;
}

/** How often a process the lost spawner started is looked for until it is gone. */
const LOST_POLL_MS = 50;
/** How long close() waits for the targets still running to exit. */
const CLOSE_WAIT_MS = 5000;
/**
 * How long a start waits for the spawner's answer (it takes milliseconds). A target can stop
 * its parent (`kill -STOP $PPID`): past this the spawner is killed and taken as lost, and the
 * start is made without it (spawn.ts).
 */
export const START_WAIT_MS = 5000;

/**
 * One spawner process (spawner-script.ts) and the targets it started: `start` resolves once
 * the process runs with its three pipes here (or failed to start, as `spawn` reports it).
 */
export class Spawner {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly running = new Map<number, SpawnedChild>();
  private lost = false;
  private closing = false;
  readonly ended: Promise<void>;

  private constructor(private readonly process: ChildProcess) {
    // 'exit', not 'close': the IPC channel of a process that has exited may hold 'close' back.
    this.ended = new Promise((resolve) => {
      const end = () => {
        this.lose();
        resolve();
      };
      process.once('exit', end);
      process.once('error', end);
    });
    process.on('message', (message: Message, handle?: unknown) => this.receive(message, handle));
    process.unref();
    this.holdLoop();
  }

  /** Starts a spawner, or undefined when no process can be started. */
  static start(): Spawner | undefined {
    try {
      const child = spawn(process.execPath, ['-e', SPAWNER_SCRIPT], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        // It needs no variable (each start carries its target's whole environment), and a target
        // that reads its parent's (/proc/$PPID/environ) finds none of the harness's there.
        env: {},
        serialization: 'json',
      });
      if (child.pid === undefined) {
        child.once('error', () => {});
        return undefined;
      }
      return new Spawner(child);
    } catch {
      return undefined;
    }
  }

  get usable(): boolean {
    return !this.lost && !this.closing;
  }

  start(request: SpawnRequest): Promise<SpawnedChild> {
    if (!this.usable) return Promise.reject(new SpawnerLost('the start'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { child: new SpawnedChild(), resolve, reject });
      this.holdLoop();
      this.process.send({ id, ...request }, undefined, {}, (error) => {
        if (error !== null) this.lose();
      });
      setTimeout(() => {
        if (this.pending.has(id)) this.kill();
      }, START_WAIT_MS).unref();
    });
  }

  /**
   * Ends the spawner once every target it started has exited (their exit status comes through
   * it), or after `waitMs` whatever runs: those targets are then watched as if it were lost.
   */
  async close(waitMs = CLOSE_WAIT_MS): Promise<void> {
    this.closing = true;
    // Its exit is what the caller waits for now.
    this.process.ref();
    this.holdLoop();
    await waitAtMost(this.ended, waitMs);
    if (this.process.connected) this.process.disconnect();
    // A spawner a target stopped never exits by itself.
    if (!(await waitAtMost(this.ended, waitMs))) this.kill();
    await this.ended;
  }

  /** The spawner does not answer (stopped, say): it goes, and what it started is watched as lost. */
  private kill(): void {
    this.lose();
    this.process.kill('SIGKILL');
  }

  private receive(message: Message, handle: unknown): void {
    if (message.kind === 'exit') {
      const child = this.running.get(message.id);
      this.running.delete(message.id);
      this.holdLoop();
      child?.exit(message.code, message.signal);
      return;
    }
    const pending = this.pending.get(message.id);
    if (pending === undefined) return;
    switch (message.kind) {
      case 'thrown':
      case 'failed': {
        this.pending.delete(message.id);
        this.holdLoop();
        const error = Object.assign(new Error(message.error.message), message.error);
        if (message.kind === 'thrown') pending.reject(error);
        else {
          // As `spawn` reports a program it cannot start: a child without a pid, and an 'error' event.
          pending.resolve(pending.child);
          setImmediate(() => pending.child.emit('error', error));
        }
        return;
      }
      case 'stdin':
      case 'stdout':
      case 'stderr': {
        if (handle === undefined) {
          this.pending.delete(message.id);
          this.holdLoop();
          pending.reject(
            new Error(`the spawner sent the ${message.kind} of process ${message.pid} without its pipe`),
          );
          return;
        }
        // The raw pipe: readable or writable as a ChildProcess's is (its stdin is not readable).
        const socket = new Socket({
          handle: handle as never,
          readable: message.kind !== 'stdin',
          writable: message.kind === 'stdin',
        });
        if (message.kind === 'stdin') {
          pending.pid = message.pid;
          pending.stdin = socket;
          return;
        }
        if (message.kind === 'stdout') {
          pending.stdout = socket;
          return;
        }
        this.pending.delete(message.id);
        const { child, pid, stdin, stdout } = pending;
        if (pid === undefined || stdin === undefined || stdout === undefined) {
          for (const stream of [stdin, stdout, socket]) stream?.destroy();
          pending.reject(new Error(`the spawner sent the pipes of process ${message.pid} out of order`));
          return;
        }
        this.running.set(message.id, child);
        child.attach(pid, stdin, stdout, socket);
        pending.resolve(child);
      }
    }
  }

  /**
   * The IPC channel keeps the harness alive only while a start or a running target waits on it;
   * a closing spawner with neither is let go.
   */
  private holdLoop(): void {
    const busy = this.pending.size > 0 || this.running.size > 0;
    if (this.closing && !busy && this.process.connected) this.process.disconnect();
    const channel = this.process.channel;
    if (busy) channel?.ref();
    else channel?.unref();
  }

  private lose(): void {
    if (this.lost) return;
    this.lost = true;
    for (const pending of this.pending.values()) pending.reject(new SpawnerLost('the start was answered'));
    this.pending.clear();
    // Their exit status is gone with the spawner: each ends, as far as the harness can tell,
    // when its process is gone.
    for (const child of this.running.values()) {
      if (child.listenerCount('error') > 0)
        child.emit('error', new SpawnerLost(`process ${child.pid} ended`));
      const watch = setInterval(() => {
        if (child.pid !== undefined && isAlive(child.pid)) return;
        clearInterval(watch);
        child.exit(null, null);
      }, LOST_POLL_MS);
    }
    this.running.clear();
  }
}
