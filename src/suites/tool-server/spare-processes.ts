import { noteTargetStart, withoutCounting } from '../../harness/target-starts.js';
import type { ServerProcess } from './process.js';

/**
 * stdio server processes started ahead of the checks that will each ask for a new one. The
 * checks of the suite run one at a time, and over stdio most of a check's time is its server
 * starting (an interpreter, a bundle): with spares, the next start overlaps the check before
 * it. A spare is only ever started, never written to, so a check still gets a process that
 * has seen nothing; what it printed meanwhile waits in its stdout pipe for the check to read.
 * A spare counts as a target start once a check takes it, so a run counts the sessions it used,
 * the same whatever `--jobs`.
 */
export class SpareProcesses {
  readonly #ready: ServerProcess[] = [];
  /** Kills of spares passed over, awaited by close(). */
  readonly #ending: Promise<void>[] = [];
  /** Set by the first fill(): until then (the preflight's session) nothing is started ahead. */
  #filling = false;
  #closed = false;

  constructor(
    private readonly spawn: () => ServerProcess,
    /** Spares kept started; 0 starts every process on demand, as `--jobs 1` does. */
    private readonly size: number,
  ) {}

  /**
   * A started server process: the oldest spare that is still running, else a new one. A spare
   * that exited while it waited is discarded, so a server that ends when left idle gets a
   * fresh process, as it would without spares; the pool is then topped up.
   */
  take(): ServerProcess {
    let proc = this.#ready.shift();
    while (proc !== undefined && proc.exit() !== undefined) {
      this.#ending.push(proc.kill()); // also ends whatever it left behind
      proc = this.#ready.shift();
    }
    if (proc === undefined) proc = this.spawn();
    else noteTargetStart();
    if (this.#filling) this.fill();
    return proc;
  }

  /** Start spares until `size` wait, and keep doing so after each take. */
  fill(): void {
    this.#filling = true;
    while (!this.#closed && this.#ready.length < this.size) this.#ready.push(withoutCounting(this.spawn));
  }

  /** Stop every spare (and what it started); none is started after this. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#ready.splice(0).map((p) => p.kill()), ...this.#ending.splice(0)]);
  }
}
