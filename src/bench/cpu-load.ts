import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks of the whole machine from the first line of /proc/stat. */
export interface MachineTicks {
  busy: number;
  total: number;
}

/**
 * The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal ... Idle
 * and iowait are the idle time; guest time is already inside user and nice.
 */
export function parseProcStat(text: string): MachineTicks {
  const line = text.split('\n', 1)[0] ?? '';
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== 'cpu') throw new Error(`expected /proc/stat to start with a "cpu" line, got "${line}"`);
  const n = fields.slice(1, 9).map(Number);
  const total = n.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: total - idle, total };
}

/** pid, parent pid and CPU ticks (own utime + stime plus reaped children's) of a /proc/<pid>/stat line. */
export function parsePidStat(text: string): { pid: number; ppid: number; ticks: number } | undefined {
  // The command name sits in parentheses and may hold spaces or parentheses itself.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const pid = Number.parseInt(text, 10);
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14-17.
  const ppid = Number(rest[1]);
  const ticks = Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
  if (!Number.isFinite(pid) || !Number.isFinite(ppid) || !Number.isFinite(ticks)) return undefined;
  return { pid, ppid, ticks };
}

/** CPU ticks of `root` and every live descendant (exited, reaped ones are in their parent's count). */
export function treeTicks(root: number, procDir = '/proc'): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  let names: string[];
  try {
    names = readdirSync(procDir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const parsed = parsePidStat(readFileSync(`${procDir}/${name}/stat`, 'utf8'));
      if (parsed) stats.set(parsed.pid, parsed);
    } catch {
      // The process exited between the listing and the read.
    }
  }
  let sum = 0;
  for (const [pid, s] of stats) {
    let p: number | undefined = pid;
    for (let depth = 0; p !== undefined && depth < 64; depth++) {
      if (p === root) {
        sum += s.ticks;
        break;
      }
      p = stats.get(p)?.ppid;
    }
  }
  return sum;
}

/** A reading of the machine and of this process tree, to be compared with a later one. */
export interface LoadMark {
  machine: MachineTicks;
  own: number;
  at: number;
}

export interface LoadProbe {
  mark(): LoadMark;
  /**
   * Share of the machine's CPU capacity (0..1) used between two marks by processes that
   * are not this bench or its children: what would disturb a measurement.
   */
  othersShare(from: LoadMark, to: LoadMark): number;
}

/** The probe reading /proc; undefined where there is no /proc/stat (not Linux). */
export function procLoadProbe(root = process.pid): LoadProbe | undefined {
  try {
    parseProcStat(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
  return {
    mark: () => ({
      machine: parseProcStat(readFileSync('/proc/stat', 'utf8')),
      own: treeTicks(root),
      at: performance.now(),
    }),
    othersShare: (from, to) => {
      const total = to.machine.total - from.machine.total;
      if (total <= 0) return 0;
      const others = to.machine.busy - from.machine.busy - (to.own - from.own);
      return Math.min(1, Math.max(0, others / total));
    },
  };
}
