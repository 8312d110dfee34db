import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Enclosure, EnclosureFactory } from './enclosure.js';
import { isAlive } from './procfs.js';

/**
 * The target's `sh` moves itself into its cgroup before it runs anything, then becomes
 * `sh -c CMD`: no process of the target ever runs outside the cgroup (moving the child
 * from the harness after the spawn would race with its first fork).
 */
const JOIN_SCRIPT =
  'echo 0 > "$0" || { echo "wirecheck: cannot move the target into its cgroup ($0)" >&2; exit 125; }; exec sh -c "$1"';

/** Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo, with its root. */
export function cgroup2Mount(mountinfo: string): { mountPoint: string; root: string } | undefined {
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (after === undefined || after.split(' ')[0] !== 'cgroup2') continue;
    const fields = before?.split(' ') ?? [];
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    return { mountPoint: unescapeMountField(mountPoint), root: unescapeMountField(root) };
  }
  return undefined;
}

function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** This process's cgroup v2 path from /proc/self/cgroup (the `0::` line). */
export function currentCgroup(procCgroup: string): string | undefined {
  const line = procCgroup.split('\n').find((l) => l.startsWith('0::'));
  return line?.slice(3).replace(/ \(deleted\)$/, '');
}

/** The directory of this process's own cgroup, if cgroup v2 is mounted and shows it. */
export function ownCgroupDir(): string | undefined {
  let mountinfo: string;
  let cgroup: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    cgroup = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  const mount = cgroup2Mount(mountinfo);
  const current = currentCgroup(cgroup);
  if (mount === undefined || current === undefined) return undefined;
  if (current !== mount.root && !current.startsWith(`${mount.root === '/' ? '' : mount.root}/`)) {
    return undefined;
  }
  const relative = mount.root === '/' ? current : current.slice(mount.root.length);
  return join(mount.mountPoint, relative);
}

/** Pids listed in a cgroup and every cgroup below it. */
export function cgroupMembers(dir: string): number[] {
  const pids: number[] = [];
  const visit = (path: string, depth: number) => {
    try {
      for (const line of readFileSync(join(path, 'cgroup.procs'), 'utf8').split('\n')) {
        if (/^\d+$/.test(line)) pids.push(Number(line));
      }
      if (depth > 16) return;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (entry.isDirectory()) visit(join(path, entry.name), depth + 1);
      }
    } catch {
      // Removed meanwhile.
    }
  };
  visit(dir, 0);
  return pids;
}

/** Removes a cgroup and the cgroups below it, deepest first; false when one is still busy. */
export function removeCgroupTree(dir: string): boolean {
  let removed = true;
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) removed = removeCgroupTree(join(dir, entry.name)) && removed;
    }
    rmdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') removed = false;
  }
  return removed;
}

/** What the cgroup method needs: the run's own cgroup, under which each target gets one. */
export interface CgroupSetup {
  readonly runDir: string;
}

/**
 * Whether this process may make cgroups of its own: cgroup v2 mounted, the current cgroup
 * writable (delegated, or root), `cgroup.kill` there (Linux 5.14+), and a process can move
 * itself into a new one. Makes `<own cgroup>/wirecheck-<pid>` for the run; removes such
 * directories of earlier runs that are empty and whose process is gone.
 */
export function probeCgroup(): CgroupSetup | string {
  const own = ownCgroupDir();
  if (own === undefined) return 'no cgroup v2 hierarchy shows this process';
  try {
    accessSync(join(own, 'cgroup.procs'), constants.W_OK);
  } catch {
    return `the current cgroup ${own} is not delegated to this user (cgroup.procs is not writable)`;
  }
  removeStaleRunDirs(own);
  const runDir = join(own, `wirecheck-${process.pid}`);
  try {
    if (existsSync(runDir)) removeCgroupTree(runDir);
    mkdirSync(runDir);
  } catch (error) {
    return `cannot make a cgroup in ${own}: ${(error as Error).message}`;
  }
  const fail = (reason: string) => {
    removeCgroupTree(runDir);
    return reason;
  };
  if (!existsSync(join(runDir, 'cgroup.kill'))) return fail('cgroup.kill is missing (Linux before 5.14)');
  const probeDir = join(runDir, 'probe');
  try {
    mkdirSync(probeDir);
  } catch (error) {
    return fail(`cannot make a cgroup in ${runDir}: ${(error as Error).message}`);
  }
  const joined = spawnSync('sh', ['-c', 'echo 0 > "$0"', join(probeDir, 'cgroup.procs')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 5000,
  });
  if (joined.status !== 0) {
    return fail(`a process cannot move into a new cgroup: ${joined.stderr?.toString().trim() || 'failed'}`);
  }
  removeCgroupTree(probeDir);
  return { runDir };
}

function removeStaleRunDirs(own: string): void {
  let entries: string[];
  try {
    entries = readdirSync(own);
  } catch {
    return;
  }
  for (const name of entries) {
    const match = /^wirecheck-(\d+)$/.exec(name);
    if (match === null || Number(match[1]) === process.pid || isAlive(Number(match[1]))) continue;
    // Only empty ones: a busy cgroup may belong to a run this process cannot see.
    removeCgroupTree(join(own, name));
  }
}

let serial = 0;

/** Each target in a fresh cgroup below the run's: `cgroup.kill` ends the whole tree. */
export function cgroupEnclosures(setup: CgroupSetup): EnclosureFactory {
  return (_tag, command): Enclosure => {
    serial += 1;
    const dir = join(setup.runDir, `target-${serial}`);
    mkdirSync(dir);
    let released = false;
    return {
      method: 'cgroup',
      file: 'sh',
      args: ['-c', JOIN_SCRIPT, join(dir, 'cgroup.procs'), command],
      extraStdio: [],
      started() {},
      ready: Promise.resolve(),
      members: () => cgroupMembers(dir).filter(isAlive),
      empty: () => cgroupMembers(dir).length === 0,
      killAll() {
        try {
          writeFileSync(join(dir, 'cgroup.kill'), '1');
        } catch {
          // Removed already.
        }
      },
      release() {
        if (released) return;
        released = removeCgroupTree(dir);
      },
    };
  };
}

/**
 * What the reaper (reaper.ts) runs when the harness died without its exit path, $1 the run's
 * cgroup: one `cgroup.kill` ends every target of the run, then the emptied cgroups go
 * (bounded: 2 s; what is still busy stays for the next run to remove).
 */
export const CGROUP_REAPER_KILL = [
  'echo 1 > "$1/cgroup.kill" 2>/dev/null',
  'i=0',
  'while [ $i -lt 20 ] && [ -n "$(cat "$1"/*/cgroup.procs 2>/dev/null)" ]; do sleep 0.1; i=$((i + 1)); done',
  'rmdir "$1"/*/ "$1" 2>/dev/null',
  'exit 0',
].join('\n');

/** Removes the run's cgroup (at exit); what is still busy stays for the next run to remove. */
export function releaseRunCgroup(setup: CgroupSetup): void {
  for (const pid of cgroupMembers(setup.runDir)) {
    if (pid === process.pid) return;
  }
  removeCgroupTree(setup.runDir);
}
