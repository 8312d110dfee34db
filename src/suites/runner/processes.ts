import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** One process as /proc shows it to the harness. */
export interface ProcInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** One letter: R, S, D, Z (zombie), T... */
  readonly state: string;
  readonly argv: readonly string[];
}

/**
 * A process the harness can recognise: `sleep <seconds>.000<12 random digits>`. The
 * digits make the argument unique to this harness process and case (several runs may
 * share a machine and a seed), and a long sleep is harmless whatever happens to it.
 */
export interface Marker {
  /** The argument of `sleep`, e.g. `311.000123456789012`. */
  readonly arg: string;
  /** The shell command that starts it: `sleep <arg>`. */
  readonly command: string;
}

export function newMarker(seconds: number): Marker {
  const digits = BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString()
    .padStart(12, '0')
    .slice(-12);
  const arg = `${seconds}.000${digits}`;
  return { arg, command: `sleep ${arg}` };
}

/**
 * The fields of `/proc/<pid>/stat` the suite needs. The command name sits in parentheses
 * and may itself hold spaces or parentheses, so the fields after it are found from the
 * last `)`.
 */
export function parseStat(text: string): Omit<ProcInfo, 'argv'> | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const [state, ppid, pgid, sid] = rest;
  if (state === undefined || sid === undefined || !Number.isInteger(pid)) return undefined;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid) };
}

/** True when this machine has a /proc the harness can scan (Linux). */
export function canScanProcesses(): boolean {
  return existsSync('/proc/self/stat');
}

/** Whether `argv` is a `sleep` started by `marker` (the shell that ran `sleep <arg>` does not count). */
export function isMarkerProcess(argv: readonly string[], marker: Marker): boolean {
  const name = argv[0]?.split('/').pop() ?? '';
  return name === 'sleep' && argv.slice(1).includes(marker.arg);
}

/**
 * Every live (non-zombie) process that carries one of the markers, by marker argument.
 * Zombies are skipped: an orphan killed by the runner stays one until pid 1 reaps it.
 * Processes that vanish while being read are simply not there.
 */
export function scanMarkers(markers: readonly Marker[]): Map<string, ProcInfo[]> {
  const found = new Map<string, ProcInfo[]>();
  if (markers.length === 0) return found;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    // Cheap filter before parsing: the marker's digits must appear in the command line.
    const marker = markers.find((m) => cmdline.includes(m.arg));
    if (marker === undefined) continue;
    const argv = cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
    if (!isMarkerProcess(argv, marker)) continue;
    const stat = readStat(Number(entry));
    if (stat === undefined || stat.state === 'Z') continue;
    const list = found.get(marker.arg) ?? [];
    list.push({ ...stat, argv });
    found.set(marker.arg, list);
  }
  return found;
}

export function readStat(pid: number): Omit<ProcInfo, 'argv'> | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** SIGKILL each process, ignoring those already gone or not ours to signal. */
export function killAll(processes: Iterable<ProcInfo>): void {
  for (const p of processes) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone already, or owned by another user (the harness is not root)
    }
  }
}
