import { closeSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { killProcess } from './kill.js';

/**
 * The head of a /proc/<pid>/status read, reused for every process: the `Uid:` line comes
 * within its first few hundred bytes. A promise and a fresh buffer per file cost the
 * runner more than the reads themselves (about 20 ms per command on a 2-core VM).
 */
const STATUS_HEAD = Buffer.allocUnsafe(4096);

/** The pids of live processes, read from /proc. */
function pids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((name) => /^\d+$/.test(name)).map(Number);
}

/** The real, effective, saved and filesystem uids of the `Uid:` line of a status file. */
export function uidsOfStatus(status: string): number[] {
  const line = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/m.exec(status);
  return line === null ? [] : line.slice(1).map(Number);
}

function statusHead(pid: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/status`, 'r');
    const bytes = readSync(fd, STATUS_HEAD, 0, STATUS_HEAD.length, 0);
    return STATUS_HEAD.toString('latin1', 0, bytes);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Whether any of the process's real, effective, saved and filesystem uids is `uid`. Read
 * from the `Uid:` line of status: a non-dumpable process (one that ran a setuid program)
 * shows as root-owned in the owner of /proc/<pid>, but its real uid stays the caller's.
 */
function runsAs(pid: number, uid: number): boolean {
  return uidsOfStatus(statusHead(pid)).includes(uid);
}

/** Whether `pid` holds an open fd on `path`. Unreadable processes (not ours) do not. */
function holds(pid: number, path: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

/**
 * Without a PID namespace (isolation `none`), a process that left the command's process
 * group (`setsid`, a double fork) survives the group kill. Every process of a session
 * inherits an fd on the session's marker file unless it closes it, so those are found by
 * scanning /proc for holders of that file, and killed. Only processes with `uid` (the uid
 * the commands run as) among their uids are scanned: a command cannot make a process of
 * another uid, and reading every fd of every process costs 14-26 ms per command. A process
 * that closed all its fds escapes this: isolation `none` says so. The scan is synchronous:
 * it runs between commands, which the runner serves one at a time.
 */
export async function killMarkedProcesses(markerPath: string, uid: number): Promise<number> {
  const doomed = pids().filter((pid) => pid !== process.pid && runsAs(pid, uid) && holds(pid, markerPath));
  for (const pid of doomed) killProcess(pid, 'SIGKILL');
  return doomed.length;
}
