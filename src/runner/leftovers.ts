import { readdir, readlink } from 'node:fs/promises';
import { killProcess } from './kill.js';

/** The pids of live processes, read from /proc. */
async function pids(): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  return entries.filter((name) => /^\d+$/.test(name)).map(Number);
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
 * scanning /proc for holders of that file, and killed. A process that closed all its fds
 * escapes this: isolation `none` says so.
 */
export async function killMarkedProcesses(markerPath: string): Promise<number> {
  const others = (await pids()).filter((pid) => pid !== process.pid);
  const marked = await Promise.all(
    others.map(async (pid) => ((await holds(pid, markerPath)) ? pid : undefined)),
  );
  const doomed = marked.filter((pid): pid is number => pid !== undefined);
  for (const pid of doomed) killProcess(pid, 'SIGKILL');
  return doomed.length;
}
