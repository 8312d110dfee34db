import type { Stats } from 'node:fs';
import { lstat, mkdir, realpath, stat, statfs, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { WirecheckError } from '../harness/errors.js';
import { lockReportDir, unlockReportDir } from './report-lock.js';

/** The report files wirecheck writes at the top of a report directory, by one run or another. */
const TOP_LEVEL_REPORTS = ['results.json', 'summary.json', 'junit.xml', 'report.html'];

/** Roots of the pseudo file systems of Linux: nothing there is a place for files. */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];

/** statfs magic numbers of pseudo file systems (linux/magic.h). */
const PSEUDO_FS_TYPES = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x73636673, 'securityfs'],
  [0x74726163, 'tracefs'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
  [0xf97cff8c, 'selinuxfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
]);

function reportDirError(dir: string, reason: string, cause?: unknown): WirecheckError {
  return new WirecheckError('WC_REPORT_DIR', `the report directory ${dir} cannot be used: ${reason}`, {
    cause,
  });
}

function under(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}${sep}`);
}

function codeOf(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e ? String((e as NodeJS.ErrnoException).code) : undefined;
}

/** The nearest existing ancestor of an absolute path (the path itself when it exists) and what is missing below it. */
async function nearestExisting(path: string, dir: string): Promise<{ existing: string; missing: string[] }> {
  const missing: string[] = [];
  let at = path;
  // One step per path component: bounded by the path's depth.
  for (;;) {
    try {
      const info = await stat(at);
      if (!info.isDirectory()) {
        throw reportDirError(
          dir,
          at === path ? 'it exists and is not a directory' : `${at} is not a directory`,
        );
      }
      return { existing: at, missing };
    } catch (e) {
      if (e instanceof WirecheckError) throw e;
      const code = codeOf(e);
      // ENOTDIR: a part of the path is a file; going up finds it and says so.
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw reportDirError(dir, `${at}: ${(e as Error).message}`, e);
      const parent = dirname(at);
      if (parent === at) throw reportDirError(dir, 'no part of its path exists', e);
      missing.unshift(at.slice(parent.length).replace(/^\//, ''));
      at = parent;
    }
  }
}

/**
 * Make sure a report directory can take the reports before a run starts, so a bad one costs
 * nothing: it is not on a pseudo file system (/proc, /sys, /dev, or any file system of that
 * kind, by statfs), it is a directory or can be created (one level at a time: Node's
 * recursive mkdir loops forever under /proc), a file can be written in it, and no report
 * file's name there is taken by a FIFO, socket, device or symbolic link (never opened, never
 * replaced). Then it is locked for this run (see report-lock.ts): a run of a live process
 * writing there is refused; writeReports releases the lock, else releaseReportDir or the
 * process's end. Returns the absolute path. WC_REPORT_DIR otherwise.
 */
export async function prepareReportDir(dir: string): Promise<string> {
  const path = resolve(dir);
  const { existing, missing } = await nearestExisting(path, dir);
  let real: string;
  try {
    real = await realpath(existing);
  } catch (e) {
    throw reportDirError(dir, `${existing}: ${(e as Error).message}`, e);
  }
  const target = join(real, ...missing);
  const pseudoRoot = PSEUDO_ROOTS.find((root) => under(path, root) || under(target, root));
  if (pseudoRoot !== undefined) {
    throw reportDirError(
      dir,
      `it is under ${pseudoRoot}, a pseudo file system of the kernel, not a place for files`,
    );
  }
  try {
    const fsType = PSEUDO_FS_TYPES.get(Number((await statfs(real)).type));
    if (fsType !== undefined) {
      throw reportDirError(dir, `${real} is on a ${fsType} file system, a pseudo file system of the kernel`);
    }
  } catch (e) {
    if (e instanceof WirecheckError) throw e;
    // statfs unsupported here: the path check above stands alone.
  }
  let at = real;
  for (const part of missing) {
    at = join(at, part);
    try {
      await mkdir(at);
    } catch (e) {
      if (codeOf(e) !== 'EEXIST')
        throw reportDirError(dir, `cannot create ${at}: ${(e as Error).message}`, e);
    }
  }
  const probe = join(target, `.wirecheck-write-test-${process.pid}`);
  try {
    await writeFile(probe, '');
    await unlink(probe);
  } catch (e) {
    throw reportDirError(dir, `cannot write in it: ${(e as Error).message}`, e);
  }
  for (const name of TOP_LEVEL_REPORTS) {
    const file = join(target, name);
    const info = await lstat(file).catch(() => undefined);
    // A directory there is writeReports' to judge: results.json can be a suite's folder of an
    // earlier `all` (stale, removed), and else the write fails after the run, saying so.
    if (info !== undefined && !info.isFile() && !info.isDirectory()) {
      throw reportDirError(
        dir,
        `${file} is ${kindOf(info)}, not a regular file: wirecheck writes its report there and neither opens nor replaces such a thing; remove it or give another directory`,
      );
    }
  }
  await lockReportDir(target, dir);
  return path;
}

/** What a file that is not a regular one is, for a message. */
export function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * Release the lock prepareReportDir took on `dir`, for a run that ends without writing its
 * reports (writeReports releases it itself): idempotent, and harmless for a directory this
 * process does not hold.
 */
export async function releaseReportDir(dir: string): Promise<void> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch {
    // No directory: no lock in it.
    return;
  }
  await unlockReportDir(real);
}
