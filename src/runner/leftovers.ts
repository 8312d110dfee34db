import { readdir, readFile, readlink } from 'node:fs/promises';
import { killProcess } from './kill.js';

/** The pids of live processes, read from /proc. */
async function pids(): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  return entries.filter((name) => /^\d+$/.test(name)).map(Number);
}

/**
 * Whether any of the process's real, effective, saved and filesystem uids is `uid`. Read
 * from the `Uid:` line of status: a non-dumpable process (one that ran a setuid program)
 * shows as root-owned in the owner of /proc/<pid>, but its real uid stays the caller's.
 */
async function runsAs(pid: number, uid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const line = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/m.exec(status);
  return line?.slice(1).some((field) => Number(field) === uid) === true;
}

/** Whether `pid` holds an open fd on `path`. Unreadable processes (not ours) do not. */
async function holds(pid: number, path: string): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.includes(path);
}

/**
 * Without a PID namespace (isolation `none`), a process that left the command's process
 * group (`setsid`, a double fork) survives the group kill. Every process of a session
 * inherits an fd on the session's marker file unless it closes it, so those are found by
 * scanning /proc for holders of that file, and killed. Only processes with `uid` (the uid
 * the commands run as) among their uids are scanned: a command cannot make a process of
 * another uid, and reading every fd of every process costs 14-26 ms per command. A process
 * that closed all its fds escapes this: isolation `none` says so.
 */
export async function killMarkedProcesses(markerPath: string, uid: number): Promise<number> {
  const others = (await pids()).filter((pid) => pid !== process.pid);
  const marked = await Promise.all(
    others.map(async (pid) => ((await runsAs(pid, uid)) && (await holds(pid, markerPath)) ? pid : undefined)),
  );
  const doomed = marked.filter((pid): pid is number => pid !== undefined);
  for (const pid of doomed) killProcess(pid, 'SIGKILL');
  return doomed.length;
}
