import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The runner's own directory for script files and session markers: mode 0711, so the
 * unprivileged uid can read a file it is given the name of, but can neither list nor
 * change the directory.
 */
export interface PrivateDir {
  readonly path: string;
  writeScript(command: string): Promise<string>;
  /** A new empty file, never an existing one. */
  newFile(name: string): Promise<string>;
  removeFile(path: string): Promise<void>;
  remove(): Promise<void>;
}

export async function createPrivateDir(): Promise<PrivateDir> {
  const path = await mkdtemp(join(tmpdir(), 'wirecheck-runner-'));
  await chmod(path, 0o711);
  const newFile = async (name: string, content = ''): Promise<string> => {
    const file = join(path, name);
    // `wx`: never follows or reuses an existing path. chmod: the umask may have taken bits off.
    await writeFile(file, content, { flag: 'wx', mode: 0o444 });
    await chmod(file, 0o444);
    return file;
  };
  return {
    path,
    // Named unguessably: readable by any uid that knows the name.
    writeScript: (command) => newFile(`command-${randomBytes(16).toString('hex')}.sh`, command),
    newFile: (name) => newFile(name),
    removeFile: (file) => unlink(file).catch(() => {}),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}
