import { readdirSync, readFileSync } from 'node:fs';
import { readStat } from './processes.js';

/** One look at the runner's process group. */
export interface MemorySample {
  /** ms after sampling started. */
  readonly atMs: number;
  /** Processes of the group seen in this look. */
  readonly processes: number;
  /** Sum over the group of each process's peak resident set so far (VmHWM), KiB: an upper bound of the group's peak. */
  readonly peakKiB: number;
  /**
   * Bytes the group's processes have read so far (rchar of /proc/<pid>/io, pipes included),
   * summed; undefined when no process's io could be read (another user's, or no such file).
   */
  readonly readBytes: number | undefined;
}

export interface MemorySampler {
  /** The harness started the runner: `pid` leads its process group. */
  started(pid: number): void;
  /**
   * The runner printed its first line: look now (synchronously, so no timer can be late
   * under load) and keep the group's peak at this moment as the baseline: the runner's
   * footprint once started, before what the session's later commands cost it.
   */
  firstOutput(): void;
  stop(): MemoryReport;
}

/** What the sampler saw of the runner's process group while a session ran. */
export interface MemoryReport {
  /** The group's leader: the `sh -c` the harness started (or what it exec'd); undefined if never found. */
  readonly leader: number | undefined;
  readonly samples: readonly MemorySample[];
  /** Every process seen in the group, with its largest VmHWM (KiB). */
  readonly peaks: ReadonlyMap<number, { readonly name: string; readonly hwmKiB: number }>;
  /** The group's peak (KiB) when the runner printed its first line; undefined if it was not seen then. */
  readonly atFirstOutputKiB?: number;
  /** What the group had read when the runner printed its first line (readBytes then). */
  readonly readAtFirstOutput?: number;
}

const INTERVAL_MS = 50;

/**
 * Samples the memory of the runner the harness is about to start, from the moment it is told
 * the runner's pid (`started`): the group it leads is summed (VmHWM, the peak resident set of each process, from
 * /proc/<pid>/status). The commands a runner starts sit in process groups of their own
 * (Runner contract 2) and are not counted: this is the runner's own memory. Stop it once
 * the session has ended.
 */
export function sampleRunnerMemory(): MemorySampler {
  const started = performance.now();
  const peaks = new Map<number, { name: string; hwmKiB: number }>();
  const reads = new Map<number, number>();
  const samples: MemorySample[] = [];
  let leader: number | undefined;
  const look = () => {
    if (leader === undefined) return;
    let processes = 0;
    for (const pid of groupMembers(leader)) {
      const status = readStatus(pid);
      if (status === undefined) continue;
      processes++;
      const before = peaks.get(pid);
      if (before === undefined || status.hwmKiB > before.hwmKiB) peaks.set(pid, status);
      const read = readChars(pid);
      if (read !== undefined && read > (reads.get(pid) ?? -1)) reads.set(pid, read);
    }
    if (processes === 0) return;
    let peakKiB = 0;
    for (const p of peaks.values()) peakKiB += p.hwmKiB;
    let readBytes: number | undefined;
    for (const r of reads.values()) readBytes = (readBytes ?? 0) + r;
    samples.push({ atMs: performance.now() - started, processes, peakKiB, readBytes });
  };
  let atFirstOutputKiB: number | undefined;
  let readAtFirstOutput: number | undefined;
  const timer = setInterval(look, INTERVAL_MS);
  return {
    started(pid) {
      leader ??= pid;
      look();
    },
    firstOutput() {
      if (atFirstOutputKiB !== undefined) return;
      look();
      atFirstOutputKiB = samples.at(-1)?.peakKiB;
      readAtFirstOutput = samples.at(-1)?.readBytes;
    },
    stop() {
      clearInterval(timer);
      return {
        leader,
        samples,
        peaks,
        ...(atFirstOutputKiB === undefined ? {} : { atFirstOutputKiB }),
        ...(readAtFirstOutput === undefined ? {} : { readAtFirstOutput }),
      };
    },
  };
}

function* groupMembers(pgid: number): Generator<number> {
  for (const pid of pids()) {
    const stat = readStat(pid);
    if (stat !== undefined && stat.pgid === pgid && stat.state !== 'Z') yield pid;
  }
}

function pids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .map(Number);
  } catch {
    return [];
  }
}

/** Name and VmHWM (KiB) of a process; undefined when gone or unreadable (a kernel thread has no VmHWM). */
function readStatus(pid: number): { name: string; hwmKiB: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const hwm = /^VmHWM:\s+(\d+)\s+kB$/m.exec(text);
  if (hwm === null) return undefined;
  const name = /^Name:\s+(.*)$/m.exec(text)?.[1] ?? '?';
  return { name, hwmKiB: Number(hwm[1]) };
}

/** rchar of /proc/<pid>/io: bytes the process passed to read() so far; undefined when unreadable. */
function readChars(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/io`, 'utf8');
  } catch {
    return undefined;
  }
  const rchar = /^rchar:\s+(\d+)$/m.exec(text);
  return rchar === null ? undefined : Number(rchar[1]);
}

/**
 * Bytes the runner's process group read from its first line to the end of the session (the
 * output of the commands after it, among other reads); undefined when it could not be read.
 */
export function readSinceFirstOutput(report: MemoryReport): number | undefined {
  const last = report.samples.at(-1)?.readBytes;
  if (last === undefined || report.readAtFirstOutput === undefined) return undefined;
  return last - report.readAtFirstOutput;
}

/** The group's peak over the whole session (KiB). */
export function finalPeak(report: MemoryReport): number | undefined {
  return report.samples.at(-1)?.peakKiB;
}

/** `node 61.2 MiB, sh 1.0 MiB` */
export function describePeaks(report: MemoryReport): string {
  return [...report.peaks.entries()].map(([pid, p]) => `${p.name} (pid ${pid}) ${mib(p.hwmKiB)}`).join(', ');
}

export function mib(kib: number): string {
  return `${(kib / 1024).toFixed(1)} MiB`;
}
