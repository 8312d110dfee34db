import { type ChildProcess, type IOType, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { noteTargetStart } from '../target-starts.js';
import { chooseContainment } from './choose.js';
import { type ContainmentMethod, type Enclosure, TAG_VARIABLE } from './enclosure.js';
import { isAlive, killGroup, readProcStat, type Survivor, survivorOf } from './procfs.js';
import { register, unregister } from './registry.js';
import { SpawnerLost } from './spawner.js';
import { activeSpawner } from './spawner-lease.js';
import { newTag } from './tag.js';

export interface ContainedSpawnOptions {
  /** The whole environment of the target (the tag variable is added). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string | undefined;
  /** stdin, stdout, stderr. */
  readonly stdio: readonly [IOType, IOType, IOType];
  /** How long processes outside the target's group get to end by themselves at close (default 250 ms). */
  readonly settleMs?: number;
  /**
   * How long processes of the target's own group get to end by themselves at close, when the
   * target's process ended before wirecheck signalled it (default GROUP_GRACE_MS).
   */
  readonly groupGraceMs?: number;
}

/** A target command started inside an enclosure. */
export interface ContainedTarget {
  /** `sh -c CMD`, the leader of its own process group (pgid = pid). */
  readonly child: ChildProcess;
  readonly method: ContainmentMethod;
  /** The target's tag (the value of WIRECHECK_CONTAINMENT_TAG in its environment). */
  readonly tag: string;
  /**
   * A signal to the target's process group; none once its process has ended by itself (before
   * wirecheck's first signal): close() judges what it left in its group, then kills it.
   */
  signalGroup(signal: NodeJS.Signals): void;
  /**
   * Live processes of the target's tree outside its process group (escapees: setsid,
   * daemons), with their command lines. The target's own process is never one.
   */
  escapees(): Survivor[];
  /**
   * Ends the target and resolves with what it left running, its survivors; then every process
   * of the enclosure is killed and waited for. Idempotent.
   *
   * - Its process still running (or wirecheck signalled it before it ended): SIGKILL to its
   *   group, whose processes go unreported (wirecheck ended them with it), and the survivors
   *   are the processes outside the group still alive after a short settle (a sandbox dying
   *   with its parent gets that long).
   * - Its process ended by itself before any signal of wirecheck's (a client that finished, a
   *   server that exited on end of input): the processes it left in its own group are as much
   *   left running as those outside it, since nothing would ever signal that group for a real
   *   user (an MCP client signals the server's pid). They get the group grace to end by
   *   themselves (a child exiting just after its parent), and those still alive are survivors too.
   */
  close(): Promise<Survivor[]>;
  /** Kills everything at once, synchronously (the exit path); close() still releases. */
  killNow(): void;
}

const SETTLE_MS = 250;
/**
 * How long, after a target's process ended by itself, the processes of its group get to end
 * by themselves before they count as left running. Measured (2 CPUs) from the wrapper's exit to
 * its group being empty, for a node wrapper whose node child also exits on the end of their
 * shared stdin: at most 197 ms idle, 933 ms with three busy loops running (median 294 ms); a
 * wrapper that SIGTERMs its child and exits at once: at most 92 ms under that load. Twice the
 * worst: a process gone within it was on its way out; costs a wait only to a target that leaks.
 */
export const GROUP_GRACE_MS = 2000;
const POLL_MS = 20;
/** After the kill, how long the enclosure gets to empty before the harness gives up waiting. */
const EMPTY_WAIT_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A target's tag, enclosure and environment, before its process starts. */
interface Prepared {
  readonly tag: string;
  readonly enclosure: Enclosure;
  readonly env: NodeJS.ProcessEnv;
}

function prepare(command: string, options: ContainedSpawnOptions): Prepared {
  const tag = newTag();
  const enclosure = chooseContainment().enclosures(tag, command);
  const env = Object.fromEntries(
    Object.entries({ ...options.env, [TAG_VARIABLE]: tag }).filter(([, v]) => v !== undefined),
  ) as NodeJS.ProcessEnv;
  return { tag, enclosure, env };
}

/**
 * Starts `sh -c command` as the target contract in the README says (its own process group, the given environment)
 * inside the containment this machine offers (chooseContainment), and registers it so
 * that `killAllContainedTargets` reaches it until it is closed. Throws like `spawn` does
 * (E2BIG, a NUL byte), and ContainmentUnavailable when no method works.
 */
export function spawnContained(command: string, options: ContainedSpawnOptions): ContainedTarget {
  return spawnDirectly(prepare(command, options), options);
}

/**
 * spawnContained, through the spawner of the suite runs in progress where there is one
 * (spawner-lease.ts) and the target needs only its three pipes: the same process, enclosure
 * and events, without a fork of the harness. Elsewhere, and when the spawner is lost before it
 * answers, the harness starts the target itself.
 */
export async function startContained(
  command: string,
  options: ContainedSpawnOptions,
): Promise<ContainedTarget> {
  const spawner = activeSpawner();
  const prepared = prepare(command, options);
  const { enclosure } = prepared;
  const pipesOnly = options.stdio.every((io) => io === 'pipe') && enclosure.extraStdio.length === 0;
  if (spawner === undefined || !pipesOnly) return spawnDirectly(prepared, options);
  // Reached by killAllContainedTargets while it starts, as a target is once it runs.
  const starting = { killNow: () => enclosure.killAll() };
  register(starting);
  let child: ChildProcess;
  try {
    const spawned = await spawner.start({
      file: enclosure.file,
      args: enclosure.args,
      env: prepared.env,
      cwd: options.cwd,
    });
    // The subset of ChildProcess the harness uses (spawned-child.ts).
    child = spawned as unknown as ChildProcess;
  } catch (error) {
    unregister(starting);
    enclosure.started(undefined);
    if (!(error instanceof SpawnerLost)) {
      enclosure.release();
      throw error;
    }
    // It may have started the process before it went: that one goes with its enclosure.
    await enclosure.ready;
    await killUntilEmpty(enclosure, () => enclosure.killAll());
    enclosure.release();
    return spawnDirectly(prepare(command, options), options);
  }
  unregister(starting);
  enclosure.started(child);
  noteTargetStart();
  return track(child, enclosure, prepared.tag, gracesOf(options));
}

function spawnDirectly({ tag, enclosure, env }: Prepared, options: ContainedSpawnOptions): ContainedTarget {
  let child: ChildProcess;
  try {
    child = spawn(enclosure.file, [...enclosure.args], {
      detached: true,
      env,
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      stdio: [...options.stdio, ...enclosure.extraStdio],
    });
  } catch (error) {
    enclosure.started(undefined);
    enclosure.release();
    throw error;
  }
  enclosure.started(child);
  noteTargetStart();
  return track(child, enclosure, tag, gracesOf(options));
}

/** How long a process of the target's tree gets to end by itself at close, by where it is. */
interface Graces {
  readonly outsideMs: number;
  readonly groupMs: number;
}

function gracesOf(options: ContainedSpawnOptions): Graces {
  return { outsideMs: options.settleMs ?? SETTLE_MS, groupMs: options.groupGraceMs ?? GROUP_GRACE_MS };
}

/** A live process of the enclosure, as /proc shows it at close. */
export interface Member {
  readonly pid: number;
  /** Undefined when it is gone or /proc could not be read. */
  readonly pgid: number | undefined;
  readonly state: string | undefined;
}

/** A process the target may have left running, and whether it is in the target's own group. */
export interface Candidate {
  readonly pid: number;
  readonly inGroup: boolean;
}

/**
 * Which members of the enclosure count as left by the target whose process (pid and pgid
 * `top`) is ending: never its own process nor a zombie (or a process already gone); those
 * outside its group always; those of its group only when it ended by itself (otherwise
 * wirecheck's kill of the group ended them with it). Pure: tested directly.
 */
export function leftBy(top: number, members: readonly Member[], endedByItself: boolean): Candidate[] {
  return members
    .filter((m) => m.pid !== top && m.state !== undefined && m.state !== 'Z')
    .map((m) => ({ pid: m.pid, inGroup: m.pgid === top }))
    .filter((c) => endedByItself || !c.inGroup);
}

/**
 * Whether a candidate still has time to end by itself, `waitedMs` into the close: a process
 * of the group gets `groupMs`, one outside it `outsideMs`. Pure: tested directly.
 */
export function withinGrace(candidate: Candidate, waitedMs: number, graces: Graces): boolean {
  return waitedMs < (candidate.inGroup ? graces.groupMs : graces.outsideMs);
}

/**
 * Kills what is in the enclosure until it is empty, bounded: kill, then look again soon (the
 * kernel takes a moment), then less often.
 */
async function killUntilEmpty(enclosure: Enclosure, kill: () => void): Promise<void> {
  for (
    let waited = 0, pause = 1;
    waited <= EMPTY_WAIT_MS;
    waited += pause, pause = Math.min(pause * 2, POLL_MS)
  ) {
    kill();
    if (enclosure.empty()) return;
    await sleep(pause);
  }
}

function track(child: ChildProcess, enclosure: Enclosure, tag: string, graces: Graces): ContainedTarget {
  const top = child.pid;
  const escapees = (): Survivor[] =>
    enclosure
      .members()
      .filter((pid) => pid !== top && readProcStat(pid)?.pgid !== top)
      .map(survivorOf);
  /**
   * Whether the target's process had ended when wirecheck first signalled it or began to close
   * it; undefined until then. Ended: its exit seen, a zombie, or gone from a /proc that shows
   * processes (a spawner reaps it before the harness hears of its exit).
   */
  let endedByItself: boolean | undefined;
  const firstEnd = (): boolean => {
    endedByItself ??=
      child.exitCode !== null ||
      child.signalCode !== null ||
      (top !== undefined && !isAlive(top) && existsSync('/proc/self/stat'));
    return endedByItself;
  };
  const signalGroup = (signal: NodeJS.Signals) => {
    // What a target that ended by itself left in its group is judged by close() first, then killed.
    if (!firstEnd()) killGroup(top, signal);
  };
  const killNow = () => {
    firstEnd();
    killGroup(top, 'SIGKILL');
    enclosure.killAll();
  };
  const candidates = (byItself: boolean): Candidate[] =>
    top === undefined
      ? []
      : leftBy(
          top,
          enclosure.members().map((pid) => {
            const stat = readProcStat(pid);
            return { pid, pgid: stat?.pgid, state: stat?.state };
          }),
          byItself,
        );
  let closing: Promise<Survivor[]> | undefined;
  const target: ContainedTarget = {
    child,
    method: enclosure.method,
    tag,
    signalGroup,
    escapees,
    killNow,
    close() {
      closing ??= (async () => {
        const byItself = firstEnd();
        // A group that outlived a target that ended by itself is judged before it is killed.
        if (!byItself) killGroup(top, 'SIGKILL');
        await enclosure.ready;
        const started = performance.now();
        let left = candidates(byItself);
        while (left.some((c) => withinGrace(c, performance.now() - started, graces))) {
          await sleep(POLL_MS);
          left = candidates(byItself);
        }
        const survivors = left.map((c) => survivorOf(c.pid));
        await killUntilEmpty(enclosure, killNow);
        enclosure.release();
        unregister(target);
        return survivors;
      })();
      return closing;
    },
  };
  if (top === undefined) {
    // The spawn failed (reported by the child's 'error' event): nothing to hold.
    enclosure.release();
    return target;
  }
  register(target);
  return target;
}

/** `pid 123: setsid sleep 300` lines, one per survivor. */
export function describeSurvivors(survivors: readonly Survivor[]): string {
  return survivors
    .map((s) => `pid ${s.pid}: ${s.command === '' ? '(no command line)' : s.command}`)
    .join('; ');
}
