import { type ChildProcess, type IOType, spawn } from 'node:child_process';
import { noteTargetStart } from '../target-starts.js';
import { chooseContainment } from './choose.js';
import { type ContainmentMethod, type Enclosure, TAG_VARIABLE } from './enclosure.js';
import { killGroup, readProcStat, type Survivor, survivorOf } from './procfs.js';
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
}

/** A target command started inside an enclosure. */
export interface ContainedTarget {
  /** `sh -c CMD`, the leader of its own process group (pgid = pid). */
  readonly child: ChildProcess;
  readonly method: ContainmentMethod;
  /** The target's tag (the value of WIRECHECK_CONTAINMENT_TAG in its environment). */
  readonly tag: string;
  /** A signal to the target's process group. */
  signalGroup(signal: NodeJS.Signals): void;
  /**
   * Live processes of the target's tree outside its process group (escapees: setsid,
   * daemons), with their command lines. The target's own process is never one.
   */
  escapees(): Survivor[];
  /**
   * Ends the target: SIGKILL to its group, a short settle for processes outside the group
   * that are on their way out (a sandbox dying with its parent), then every process of the
   * enclosure is killed and waited for. Resolves with the processes that were still alive
   * outside the group when the settle ended: what the target left running. Idempotent.
   */
  close(): Promise<Survivor[]>;
  /** Kills everything at once, synchronously (the exit path); close() still releases. */
  killNow(): void;
}

const SETTLE_MS = 250;
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
  return track(child, enclosure, prepared.tag, options.settleMs ?? SETTLE_MS);
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
  return track(child, enclosure, tag, options.settleMs ?? SETTLE_MS);
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

function track(child: ChildProcess, enclosure: Enclosure, tag: string, settleMs: number): ContainedTarget {
  const top = child.pid;
  const escapees = (): Survivor[] =>
    enclosure
      .members()
      .filter((pid) => pid !== top && readProcStat(pid)?.pgid !== top)
      .map(survivorOf);
  const killNow = () => {
    killGroup(top, 'SIGKILL');
    enclosure.killAll();
  };
  let closing: Promise<Survivor[]> | undefined;
  const target: ContainedTarget = {
    child,
    method: enclosure.method,
    tag,
    signalGroup: (signal) => killGroup(top, signal),
    escapees,
    killNow,
    close() {
      closing ??= (async () => {
        killGroup(top, 'SIGKILL');
        await enclosure.ready;
        let left = escapees();
        for (let waited = 0; left.length > 0 && waited < settleMs; waited += POLL_MS) {
          await sleep(POLL_MS);
          left = escapees();
        }
        const survivors = left.filter((s) => readProcStat(s.pid)?.state !== 'Z');
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
