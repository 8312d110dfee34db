import { type ChildProcess, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Enclosure, EnclosureFactory } from './enclosure.js';
import { openLifeline } from './lifeline.js';
import { environmentHolds, isAlive, killPid, listPids, pidNamespaceOf } from './procfs.js';

/**
 * Run by `unshare --pid --mount` (no fork) as `sh -c OUTER wirecheck-containment CMD`. This
 * sh stays in the harness's PID namespace (it is the process the harness started, pid =
 * pgid); every process it forks lands in a new PID namespace:
 *
 * - its first fork becomes the namespace's init: in a session of its own (a kill of the
 *   target's group does not reach it), holding none of the target's stdio, it waits on
 *   the lifeline FIFO, whose only writer is the harness. Its pid goes to the harness on
 *   fd 3. When init dies (the harness kills it, or the harness dies and the lifeline
 *   reads end-of-file), the kernel kills every process of the namespace: setsid escapees
 *   and double-fork daemons included. No process inside can signal it.
 * - its second fork mounts a /proc of the new namespace (so that pids, /proc and programs
 *   such as bubblewrap inside agree) and becomes the target, `sh -c CMD`, with the real
 *   stdin. As non-root (a user namespace, capabilities kept for that mount) it drops
 *   every capability first: the target runs with the caps it would have had.
 *
 * This sh then lets go of the target's stdio (so its pipes close when the target's
 * processes do), survives the terminate signals meant for the target, and exits with the
 * target's status: a death by signal N shows as exit 128+N.
 */
export function outerScript(setup: {
  setsid: string;
  sh: string;
  setpriv: string;
  userNamespace: boolean;
}): string {
  const exec = setup.userNamespace
    ? `exec '${setup.setpriv}' --inh-caps=-all --ambient-caps=-all -- sh -c "$1"`
    : 'exec sh -c "$1"';
  return [
    'exec 5<&0',
    `(exec 3>&- 5<&- 0<&4 4<&- >/dev/null 2>&1; exec '${setup.setsid}' '${setup.sh}' -c 'read _line; exit 0' wirecheck-containment-init) &`,
    'echo $! >&3',
    'exec 3>&- 4<&-',
    '(',
    '  exec 0<&5 5<&-',
    `  mount -t proc proc /proc || { echo "wirecheck: cannot mount /proc for the target's PID namespace" >&2; exit 125; }`,
    `  ${exec}`,
    ') &',
    't=$!',
    'exec 5<&- 0</dev/null >/dev/null 2>&1',
    'trap : TERM INT HUP',
    's=0',
    'while kill -0 $t 2>/dev/null; do wait $t; s=$?; done',
    'exit $s',
  ].join('\n');
}

export interface PidNamespaceSetup {
  readonly unshare: string;
  readonly setsid: string;
  readonly setpriv: string;
  readonly sh: string;
  /** Not root: the namespace needs a user namespace, mapped to the same uid. */
  readonly userNamespace: boolean;
  /** The harness's end of the lifeline FIFO (read and write; never inherited). */
  readonly lifelineFd: number;
}

function find(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    if (!dir.startsWith('/')) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Argument list of unshare for one target. */
function unshareArgs(setup: Omit<PidNamespaceSetup, 'lifelineFd' | 'unshare'>, command: string): string[] {
  return [
    '--pid',
    '--mount',
    '--propagation',
    'private',
    ...(setup.userNamespace ? ['--user', '--map-current-user', '--keep-caps'] : []),
    '--',
    'sh',
    '-c',
    outerScript(setup),
    'wirecheck-containment',
    command,
  ];
}

/**
 * Whether util-linux can put a target in a PID namespace here: unshare, setsid and setpriv
 * installed, namespaces allowed (as root, or through a user namespace), and the target
 * really is PID 2 of a new namespace with its own /proc.
 */
export function probePidNamespace(): PidNamespaceSetup | string {
  const unshare = find('unshare');
  const setsid = find('setsid');
  const setpriv = find('setpriv');
  const sh = find('sh');
  if (unshare === undefined || setsid === undefined || setpriv === undefined || sh === undefined) {
    return 'util-linux unshare, setsid or setpriv is not installed';
  }
  const lifelineFd = openLifeline();
  if (typeof lifelineFd === 'string') return lifelineFd;
  const base = { unshare, setsid, setpriv, sh, lifelineFd };
  const root = process.getuid?.() === 0;
  const tries = root ? [false] : [true];
  let reason = '';
  for (const userNamespace of tries) {
    const setup = { ...base, userNamespace };
    let readFd: number | undefined;
    try {
      readFd = openSync(`/proc/self/fd/${lifelineFd}`, 'r');
      const probe = spawnSync(unshare, unshareArgs(setup, 'echo $$'), {
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', readFd],
        timeout: 5000,
      });
      const initPid = Number(probe.output[3]?.toString().trim());
      if (Number.isInteger(initPid) && initPid > 0) killPid(initPid);
      const said = probe.stdout?.toString().trim();
      if (probe.status === 0 && said === '2') return setup;
      reason = `unshare --pid --mount${userNamespace ? ' --user' : ''} does not work here: ${
        probe.stderr?.toString().trim() || probe.error?.message || `printed ${JSON.stringify(said)}`
      }`;
    } catch (error) {
      reason = `unshare --pid failed: ${(error as Error).message}`;
    } finally {
      if (readFd !== undefined) closeSync(readFd);
    }
  }
  closeSync(lifelineFd);
  return reason;
}

/** Each target in a fresh PID namespace whose init the harness holds (outerScript). */
export function pidNamespaceEnclosures(setup: PidNamespaceSetup): EnclosureFactory {
  return (tag, command): Enclosure => {
    const tagEntry = `WIRECHECK_CONTAINMENT_TAG=${tag}`;
    const lifeline = openSync(`/proc/self/fd/${setup.lifelineFd}`, 'r');
    let lifelineOpen = true;
    const closeLifeline = () => {
      if (!lifelineOpen) return;
      lifelineOpen = false;
      closeSync(lifeline);
    };
    let child: ChildProcess | undefined;
    let initPid: number | undefined;
    let namespace: string | undefined;
    let announced: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      announced = resolve;
    });
    const members = (): number[] => {
      const top = child?.pid;
      return listPids().filter((pid) => {
        if (pid === process.pid || pid === initPid) return false;
        const inside =
          pid === top ||
          (namespace !== undefined && pidNamespaceOf(pid) === namespace) ||
          // Nested namespaces (a runner's own sandbox) show another namespace: the tag finds those that kept it.
          environmentHolds(pid, tagEntry);
        return inside && isAlive(pid);
      });
    };
    return {
      method: 'pid-namespace',
      file: setup.unshare,
      args: unshareArgs(setup, command),
      extraStdio: ['pipe', lifeline],
      ready,
      started(spawned) {
        closeLifeline();
        child = spawned;
        const report = spawned?.stdio[3] as Readable | null | undefined;
        if (report === null || report === undefined) return announced();
        let text = '';
        report.on('error', () => {});
        report.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          const match = /^(\d+)\n/.exec(text);
          if (match === null) return;
          initPid = Number(match[1]);
          namespace = pidNamespaceOf(initPid);
          announced();
        });
        report.once('close', () => announced());
      },
      members,
      // The namespace's init dies last (the kernel kills and reaps the rest first).
      empty: () =>
        (initPid === undefined || !isAlive(initPid)) && (child?.pid === undefined || !isAlive(child.pid)),
      killAll() {
        if (initPid !== undefined) killPid(initPid);
        if (child?.pid !== undefined) killPid(child.pid);
        for (const pid of members()) killPid(pid);
      },
      release() {
        closeLifeline();
        (child?.stdio[3] as Readable | null | undefined)?.destroy();
      },
    };
  };
}
