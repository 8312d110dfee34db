import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A process left running by a target, as the harness reports it. */
export interface Survivor {
  readonly pid: number;
  /** Its command line, arguments joined by spaces (cut at 300 characters). */
  readonly command: string;
}

/** What the containment needs of `/proc/<pid>/stat`. */
export interface ProcStat {
  readonly pid: number;
  /** One letter: R, S, D, Z (zombie), T... */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
}

const COMMAND_CHARS = 300;

/** The pids in /proc (empty where there is no /proc). */
export function listPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The fields after the command name, which sits in parentheses and may hold spaces or
 * parentheses itself: they are found from the last `)`.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const [state, ppid, pgid] = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  if (state === undefined || pgid === undefined || !Number.isInteger(pid)) return undefined;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Alive: present and not a zombie (an orphan stays a zombie until pid 1 reaps it). */
export function isAlive(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

export function readCommandLine(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.at(-1) === '') argv.pop();
    const text = argv.join(' ');
    return text.length > COMMAND_CHARS ? `${text.slice(0, COMMAND_CHARS)}...` : text;
  } catch {
    return '';
  }
}

/** Whether the process's initial environment holds `entry` (`NAME=value`); false when unreadable. */
export function environmentHolds(pid: number, entry: string): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const whole = Buffer.from(`${entry}\0`);
  return environ.subarray(0, whole.length).equals(whole) || environ.includes(`\0${entry}\0`);
}

/** `pid:[4026531836]` for the process's PID namespace, or undefined when it cannot be read. */
export function pidNamespaceOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

export function survivorOf(pid: number): Survivor {
  return { pid, command: readCommandLine(pid) };
}

/** SIGKILL, ignoring a process that is already gone. */
export function killPid(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already, or not ours to signal.
  }
}

/** A signal to every process of the group `pgid`; an empty group is not an error. */
export function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined || pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is empty.
  }
}
