import type { Stats } from 'node:fs';
import { lchown, lstat, mkdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute, normalize } from 'node:path';
import type { Identity } from './command-line.js';

/** The working directory cannot be made ready for a command. */
export class WorkdirError extends Error {
  override readonly name = 'WorkdirError';
}

/** System directories a working directory must never be (or be inside): the runner makes it writable. */
const SYSTEM_DIRS = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/sbin',
  '/sys',
  '/usr',
];

/**
 * Why `workdir` (an absolute path) cannot be a working directory, or undefined. The runner
 * binds it writable and, as root, gives it to the unprivileged uid: `/`, a top-level
 * directory or a system directory would hand over the machine.
 */
export function unsafeWorkdir(workdir: string): string | undefined {
  if (!isAbsolute(workdir)) return `the working directory must be an absolute path, got ${workdir}`;
  const path = normalize(workdir).replace(/\/+$/, '') || '/';
  if (dirname(path) === path) return 'the working directory cannot be the root directory';
  if (dirname(path) === '/') return `the working directory cannot be a top-level directory (${path})`;
  const system = SYSTEM_DIRS.find((dir) => path === dir || path.startsWith(`${dir}/`));
  return system === undefined ? undefined : `the working directory cannot be inside ${system}`;
}

/** Whether a process running as `id` (no supplementary groups) may pass through a directory. */
export function searchableBy(dir: Pick<Stats, 'mode' | 'uid' | 'gid'>, id: Identity): boolean {
  if (dir.uid === id.uid) return (dir.mode & 0o100) !== 0;
  if (dir.gid === id.gid) return (dir.mode & 0o010) !== 0;
  return (dir.mode & 0o001) !== 0;
}

/**
 * Runner contract 2: the dedicated working directory, created if absent (before every
 * command, so a directory deleted between commands comes back). When the runner drops to
 * `runAs`, the directory is given to that uid so the command can write it, and every
 * directory above it must let that uid through.
 *
 * As root the runner never follows a symbolic link to give it away: without a mount
 * namespace (isolation `none`) the command owns the directory and could replace it by a
 * link to /etc before the next command.
 */
export async function prepareWorkdir(workdir: string, runAs: Identity | null): Promise<void> {
  try {
    await mkdir(workdir, { recursive: true });
  } catch (error) {
    throw new WorkdirError(`cannot create the working directory ${workdir}: ${(error as Error).message}`);
  }
  const info = await lstat(workdir);
  if (!info.isDirectory()) {
    throw new WorkdirError(
      `the working directory ${workdir} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; give the real path of a directory`,
    );
  }
  if (runAs === null) return;
  if (info.uid !== runAs.uid || info.gid !== runAs.gid) await lchown(workdir, runAs.uid, runAs.gid);
  for (let dir = dirname(workdir); ; dir = dirname(dir)) {
    if (!searchableBy(await stat(dir), runAs)) {
      throw new WorkdirError(
        `the working directory ${workdir} is out of reach of uid ${runAs.uid}: ${dir} does not let it through (make it mode 0755 or 0711)`,
      );
    }
    if (dir === dirname(dir)) break;
  }
}
