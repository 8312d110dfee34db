import type { ChildProcess, IOType } from 'node:child_process';

/** How a target's process tree is held together, strongest first (docs/security.md). */
export const CONTAINMENT_METHODS = ['cgroup', 'pid-namespace', 'tag'] as const;
export type ContainmentMethod = (typeof CONTAINMENT_METHODS)[number];

/** The environment variable that carries a target's tag (every method sets it). */
export const TAG_VARIABLE = 'WIRECHECK_CONTAINMENT_TAG';

/**
 * One target's enclosure: how to start `sh -c CMD` inside it, which processes are in it,
 * and how to kill them all. Everything but `start` is synchronous, so the exit path of
 * the harness can use it.
 */
export interface Enclosure {
  readonly method: ContainmentMethod;
  /** The program and arguments that end up running `sh -c command` inside the enclosure. */
  readonly file: string;
  readonly args: readonly string[];
  /** Entries for fds 3 onwards (after the caller's stdin, stdout and stderr). */
  readonly extraStdio: readonly (IOType | number)[];
  /** Called once the child is spawned (or not: `child` undefined) with the extra fds handed over. */
  started(child: ChildProcess | undefined): void;
  /** Resolves once the enclosure can list and kill its processes (at once for most methods). */
  readonly ready: Promise<void>;
  /** Live (non-zombie) processes in the enclosure now, the target's own top process included, the enclosure's own helpers (a namespace init) not. */
  members(): number[];
  /** Kills every process in the enclosure (one pass; call again until `empty()`). */
  killAll(): void;
  /** Whether no process is left in the enclosure (cheaper than `members()` where it can be). */
  empty(): boolean;
  /** Gives back what the enclosure holds (a cgroup directory, a pipe); safe to call twice. */
  release(): void;
}

export type EnclosureFactory = (tag: string, command: string) => Enclosure;
