import { lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { link, lstat, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { WirecheckError } from '../harness/errors.js';

/**
 * The lock of a report directory: one run writes there at a time, or two runs' files mix
 * (results.json of one seed beside junit.xml of another). Hidden, so a listing of the reports
 * shows the reports only; removed when the reports are written or the process ends.
 */
export const LOCK_FILE = '.wirecheck.lock';

interface LockRecord {
  readonly pid: number;
  /** When the process started (ISO), for the person who finds the lock. */
  readonly startedAt: string;
  /**
   * The kernel's start time of the process (Linux /proc/<pid>/stat, clock ticks since boot):
   * a pid in use by another process since (a container restarted, pids reused) is not the holder.
   */
  readonly startTicks?: string;
  readonly host: string;
  /** Tells this lock from one of another run of the same pid. */
  readonly token: string;
}

/** Locks this process holds: real directory -> its lock record. */
const held = new Map<string, LockRecord>();
let exitHookInstalled = false;

function startTicksOf(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may hold spaces and parentheses: the fields after its last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // starttime is field 22; the slice starts at field 3.
    const ticks = fields[19];
    return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

function ownRecord(): LockRecord {
  const startTicks = startTicksOf('self');
  return {
    pid: process.pid,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    ...(startTicks === undefined ? {} : { startTicks }),
    host: hostname(),
    token: `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  };
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return {
      pid: value.pid,
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : 'an unknown time',
      ...(typeof value.startTicks === 'string' ? { startTicks: value.startTicks } : {}),
      host: typeof value.host === 'string' ? value.host : hostname(),
      token: typeof value.token === 'string' ? value.token : '',
    };
  } catch {
    return undefined;
  }
}

function codeOf(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e ? String((e as NodeJS.ErrnoException).code) : undefined;
}

/** Whether the process that wrote the record still runs (on this host: another host's cannot be asked). */
function holderState(record: LockRecord, dir: string): 'live' | 'dead' | 'unknown' {
  if (record.host !== hostname()) return 'unknown';
  if (record.pid === process.pid) {
    // This process holds it for another run in it; else an earlier process of the same pid left it.
    return held.get(dir)?.token === record.token ? 'live' : 'dead';
  }
  try {
    process.kill(record.pid, 0);
  } catch (e) {
    // EPERM: it runs, as another user.
    if (codeOf(e) !== 'EPERM') return 'dead';
  }
  if (record.startTicks !== undefined) {
    const now = startTicksOf(record.pid);
    if (now !== undefined && now !== record.startTicks) return 'dead';
  }
  return 'live';
}

function lockError(dir: string, reason: string, cause?: unknown): WirecheckError {
  return new WirecheckError('WC_REPORT_DIR', `the report directory ${dir} cannot be used: ${reason}`, {
    cause,
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // An interrupt or an error that ends the process before the reports are written: the lock
  // must not outlive it (a dead holder's lock is taken over, but only once its pid is free).
  process.once('exit', releaseHeldLocksSync);
}

/**
 * Remove every lock this process holds, synchronously: for the exit paths that run no more
 * code of ours (a second signal ends the process by the signal itself, and no 'exit' handler
 * runs then), so that the next run into the directory is not refused.
 */
export function releaseHeldLocksSync(): void {
  for (const dir of [...held.keys()]) releaseSync(dir);
}

function releaseSync(dir: string): void {
  const mine = held.get(dir);
  if (mine === undefined) return;
  held.delete(dir);
  const path = join(dir, LOCK_FILE);
  try {
    if (lstatSync(path).isFile() && parseRecord(readFileSync(path, 'utf8'))?.token === mine.token)
      unlinkSync(path);
  } catch {
    // Gone already, or the directory with it: nothing is left to release.
  }
}

/**
 * Take the lock of `dir` (an existing directory, by its real path) for this process's run:
 * the lock file is created exclusively and holds the pid, start time and host. A lock of a
 * live process (or of another host, whose processes cannot be asked) is WC_REPORT_DIR saying
 * which; one left by a process that no longer runs is taken over. `shown` names the
 * directory in messages.
 */
export async function lockReportDir(dir: string, shown: string = dir): Promise<void> {
  const path = join(dir, LOCK_FILE);
  const mine = ownRecord();
  // A stale lock taken over by another run between our reading and our renaming: read again.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(path, `${JSON.stringify(mine)}\n`, { flag: 'wx', mode: 0o644 });
      held.set(dir, mine);
      installExitHook();
      return;
    } catch (e) {
      if (codeOf(e) !== 'EEXIST')
        throw lockError(shown, `cannot create its lock ${path}: ${(e as Error).message}`, e);
    }
    let text: string;
    try {
      // Never opened unless a regular file: a FIFO there would block the read for ever.
      const info = await lstat(path);
      if (!info.isFile()) {
        throw lockError(shown, `${path} is not a regular file, so not a lock wirecheck wrote; remove it`);
      }
      text = await readFile(path, 'utf8');
    } catch (e) {
      if (e instanceof WirecheckError) throw e;
      if (codeOf(e) === 'ENOENT') continue;
      throw lockError(shown, `cannot read its lock ${path}: ${(e as Error).message}`, e);
    }
    // A lock half-written by a process killed while creating it is an unreadable record: stale.
    const record = parseRecord(text);
    const state = record === undefined ? 'dead' : holderState(record, dir);
    if (record !== undefined && state === 'live') {
      const who =
        record.pid === process.pid
          ? `this process (pid ${record.pid}), for another run in it`
          : `process ${record.pid} (started ${record.startedAt})`;
      throw lockError(
        shown,
        `another wirecheck run is writing its reports there: ${path} is held by ${who}; wait for it to end or give another --report-dir`,
      );
    }
    if (record !== undefined && state === 'unknown') {
      throw lockError(
        shown,
        `${path} is held by process ${record.pid} on host ${record.host} (started ${record.startedAt}), which cannot be asked from ${hostname()} whether it still runs; remove ${path} if that run is over`,
      );
    }
    // Renamed, not removed: of two runs taking over one stale lock, the second renames the
    // first's fresh lock, sees it is not the stale one it judged, and puts it back.
    const aside = `${path}.stale-${mine.token}`;
    try {
      await rename(path, aside);
    } catch (e) {
      if (codeOf(e) === 'ENOENT') continue;
      throw lockError(shown, `cannot take over the stale lock ${path}: ${(e as Error).message}`, e);
    }
    const moved = await readFile(aside, 'utf8').catch(() => '');
    if (moved !== text) {
      await link(aside, path).catch(() => {});
      await unlink(aside).catch(() => {});
      continue;
    }
    await unlink(aside).catch(() => {});
  }
  throw lockError(
    shown,
    `${path} kept changing while wirecheck tried to take it: another run is starting there`,
  );
}

/** Whether this process holds the lock of `dir` (its real path). */
export function holdsReportDir(dir: string): boolean {
  return held.has(dir);
}

/**
 * Release the lock of `dir` (its real path) if this process holds it: idempotent, and a lock
 * file that is no longer this run's (removed by hand, taken over) is left alone.
 */
export async function unlockReportDir(dir: string): Promise<void> {
  const mine = held.get(dir);
  if (mine === undefined) return;
  held.delete(dir);
  const path = join(dir, LOCK_FILE);
  try {
    if ((await lstat(path)).isFile() && parseRecord(await readFile(path, 'utf8'))?.token === mine.token)
      await unlink(path);
  } catch {
    // Gone already: released.
  }
}
