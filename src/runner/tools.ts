import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Tools } from './command-line.js';

/**
 * Where to look besides PATH: the sbin directories are often missing from a user's PATH.
 * Only those: a program that is not on PATH (or in sbin) counts as not installed, so a
 * PATH without bubblewrap means no bubblewrap.
 */
const STANDARD_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** A path to use, or null to treat the tool as not installed (e.g. to try a fallback). */
export type ToolOverrides = { readonly [K in keyof Tools]?: string | null };

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The shells the runner cannot work without are also looked for where every system has them. */
const SHELL_DIRS = ['/usr/bin', '/bin'];

async function find(name: string, searchPath: string): Promise<string | undefined> {
  const extra = name === 'bash' || name === 'sh' ? [...STANDARD_DIRS, ...SHELL_DIRS] : STANDARD_DIRS;
  const dirs = [...searchPath.split(delimiter).filter((d) => d.startsWith('/')), ...extra];
  for (const dir of new Set(dirs)) {
    const path = join(dir, name);
    // The real file: a link on PATH (a shim directory) may not exist inside a sandbox.
    if (await executable(path)) return realpath(path).catch(() => path);
  }
  return undefined;
}

/** Finds the programs the runner uses; bash and sh are required, the others are optional. */
export async function findTools(
  overrides: ToolOverrides = {},
  searchPath = process.env.PATH ?? '',
): Promise<Tools> {
  const pick = async (key: keyof Tools): Promise<string | undefined> => {
    const given = overrides[key];
    if (given === null) return undefined;
    if (given !== undefined) return given;
    return find(key, searchPath);
  };
  const [bash, sh, bwrap, prlimit, unshare, setpriv] = await Promise.all(
    (['bash', 'sh', 'bwrap', 'prlimit', 'unshare', 'setpriv'] as const).map(pick),
  );
  if (bash === undefined) throw new Error('bash was not found: the runner needs bash');
  return { bash, sh: sh ?? '/bin/sh', bwrap, prlimit, unshare, setpriv };
}
