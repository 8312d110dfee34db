import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

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
 * A process the harness can recognise: `sleep <seconds>.000<12 digits>`. The digits are a
 * count of this harness process's markers (4 digits) and a random salt drawn once per harness
 * process (8 digits): unique among the cases of a run, and among runs that share a machine
 * and a seed, whose scans and kills must never take one another's sleeps. Reports show the
 * digits as a placeholder (stableMarkerText), so the same seed gives the same report text.
 * A long sleep is harmless whatever happens to it.
 */
export interface Marker {
  /** The argument of `sleep`, e.g. `311.000001248151623`. */
  readonly arg: string;
  /** The shell command that starts it: `sleep <arg>`. */
  readonly command: string;
}

/** Digits of a marker after its whole milliseconds: the count, then the salt. */
const COUNT_DIGITS = 4;
const SALT_DIGITS = 8;
const SALT = String(randomBytes(4).readUInt32BE() % 10 ** SALT_DIGITS).padStart(SALT_DIGITS, '0');
let markers = 0;

/** A marker sleeping `seconds` (whole milliseconds count; the digits after them make it unique). */
export function newMarker(seconds: number): Marker {
  // Wraps after 10^4: only markers alive at once must differ, and a run makes a few dozen.
  const count = String(markers++ % 10 ** COUNT_DIGITS).padStart(COUNT_DIGITS, '0');
  const ms = Math.round(seconds * 1000);
  const arg = `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}${count}${SALT}`;
  return { arg, command: `sleep ${arg}` };
}

/** What reports show for the 12 digits that make a marker unique. */
export const MARKER_DIGITS_SHOWN = '<12 digits>';

const MARKER_IN_TEXT = new RegExp(`(\\d\\.\\d{3})\\d{${COUNT_DIGITS}}${SALT}(?!\\d)`, 'g');

/**
 * `text` with the digits of this harness process's markers replaced by MARKER_DIGITS_SHOWN
 * (`sleep 315.000<12 digits>`): they differ between runs with one seed, which would make
 * every report that quotes a marker differ from the last.
 */
export function stableMarkerText(text: string): string {
  return text.includes(SALT) ? text.replace(MARKER_IN_TEXT, `$1${MARKER_DIGITS_SHOWN}`) : text;
}

/** What a process's standard input and output are (`pipe:[12]`, `socket:[34]`, a path), as /proc links them. */
export interface Stdio {
  readonly stdin: string | undefined;
  readonly stdout: string | undefined;
}

/** A watched process when the harness first saw it, with what /proc told of its user and group. */
export interface Sighting extends ProcInfo {
  /** Its real user id as the harness's user namespace sees it (a container's root may be another user here). */
  readonly uid: number | undefined;
  /** The leader of its process group: command line and standard input and output (undefined: gone). */
  readonly leader: { readonly argv: readonly string[]; readonly stdio: Stdio } | undefined;
}

/**
 * The standard input and output of a process; a link that cannot be read (the process gone,
 * another user's) is undefined.
 */
export function stdioOf(pid: number): Stdio {
  const link = (fd: number) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return undefined;
    }
  };
  return { stdin: link(0), stdout: link(1) };
}

/** The real user id in a `/proc/<pid>/status` text: the first number of its `Uid:` line. */
export function parseRealUid(status: string): number | undefined {
  const m = /^Uid:\s+(\d+)/m.exec(status);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

export function sightingOf(p: ProcInfo): Sighting {
  const uid = readText(`/proc/${p.pid}/status`);
  const cmdline = readText(`/proc/${p.pgid}/cmdline`);
  return {
    ...p,
    uid: uid === undefined ? undefined : parseRealUid(uid),
    leader: cmdline === undefined ? undefined : { argv: argvOf(cmdline), stdio: stdioOf(p.pgid) },
  };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function argvOf(cmdline: string): string[] {
  return cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
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
    const argv = argvOf(cmdline);
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

/** Programs that lead a group a runner feeds commands to: a shell session, a sandbox. */
const SESSION_LEADERS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'busybox',
  'fish',
  'bwrap',
  'unshare',
  'firejail',
  'nsjail',
  'setsid',
]);

/**
 * A process group two commands share whose leader is neither a shell nor a sandbox (and, as
 * groupLedByRunner is asked first, holds other pipes than the runner's): a runner reached
 * through a relay (`docker exec`, ssh, a pipe) holds the relay's pipes, so whether the group
 * is the runner's cannot be told. Undefined when the commands share no such group.
 */
export function unexplainedSharedGroup(
  first: readonly Sighting[],
  second: readonly Sighting[],
): Sighting | undefined {
  return first.find((p) => {
    if (!second.some((q) => q.pgid === p.pgid)) return false;
    const program = p.leader?.argv[0]?.split('/').at(-1);
    return program !== undefined && !SESSION_LEADERS.has(program);
  });
}

/**
 * A process group that commands of two markers share and whose leader reads the runner's
 * lines and writes its answers (the same standard input and output as the process the
 * harness started): the runner's own group, even when the runner left the group the harness
 * gave it (a launcher's child that called setsid). A group two commands share whose leader
 * is a shell session or a sandbox the runner feeds is not the runner's, nor is a group one
 * command's shell leads. Undefined when no such group was seen.
 */
export function groupLedByRunner(
  first: readonly Sighting[],
  second: readonly Sighting[],
  runnerStdio: Stdio,
): Sighting | undefined {
  const holdsRunnerStdio = (s: Stdio) =>
    s.stdin !== undefined && s.stdin === runnerStdio.stdin && s.stdout === runnerStdio.stdout;
  return first.find(
    (p) =>
      p.leader !== undefined && holdsRunnerStdio(p.leader.stdio) && second.some((q) => q.pgid === p.pgid),
  );
}
