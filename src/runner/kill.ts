/** Sends `signal` to the process group `pgid`; a group that is already gone is not an error. */
export function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined || pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left in the group. EPERM cannot happen for a group the runner started.
  }
}

export function killProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}
