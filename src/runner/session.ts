import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { IsolationLevel } from './command-line.js';
import { killMarkedProcesses } from './leftovers.js';
import type { PrivateDir } from './private-dir.js';

/** What a caller may see of the session. */
export interface SessionInfo {
  /** 1 for the first session; each `restart: true` starts the next one. */
  readonly generation: number;
  /** Commands run in this session. */
  readonly commandsRun: number;
}

/**
 * The runner's shell session. Every command runs in a fresh `bash`, so no shell state (cwd,
 * variables, functions, jobs) carries from one command to the next; what a session holds
 * is the processes its commands left running. Under bwrap and util-linux there are none:
 * each command's PID namespace dies with it. Under `none`, every process of the session
 * inherits an fd on the session's marker file; processes that escaped their command's
 * group are killed after each command and when the session is discarded. The working
 * directory is not session state: its files stay across commands and restarts.
 */
export class BashSession {
  #generation = 1;
  #commandsRun = 0;
  #marker: FileHandle | undefined;
  #markerPath = '';

  private constructor(
    readonly dir: PrivateDir,
    readonly level: IsolationLevel,
    readonly runUid: number,
  ) {}

  /** `runUid`: the uid the commands run as; only its processes can hold the marker. */
  static async open(dir: PrivateDir, level: IsolationLevel, runUid: number): Promise<BashSession> {
    const session = new BashSession(dir, level, runUid);
    await session.#newMarker();
    return session;
  }

  get info(): SessionInfo {
    return { generation: this.#generation, commandsRun: this.#commandsRun };
  }

  /** The fd every process of the session inherits (isolation `none` only). */
  get markerFd(): number | undefined {
    return this.level === 'none' ? this.#marker?.fd : undefined;
  }

  async #newMarker(): Promise<void> {
    await this.#marker?.close();
    if (this.level !== 'none') return;
    this.#markerPath = await this.dir.newFile(`session-${this.#generation}.marker`);
    this.#marker = await open(this.#markerPath, constants.O_RDONLY);
  }

  /** Kills what the session's commands left running (isolation `none`); the count killed. */
  async killLeftovers(): Promise<number> {
    return this.level === 'none' ? killMarkedProcesses(this.#markerPath, this.runUid) : 0;
  }

  commandRan(): void {
    this.#commandsRun += 1;
  }

  /** `restart: true`: the session is discarded with everything it left, and a new one begins. */
  async restart(): Promise<void> {
    await this.killLeftovers();
    this.#generation += 1;
    this.#commandsRun = 0;
    await this.#newMarker();
  }

  async close(): Promise<void> {
    await this.killLeftovers();
    await this.#marker?.close();
    this.#marker = undefined;
  }
}
