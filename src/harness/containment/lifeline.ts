import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A FIFO the harness holds open for reading and writing from now until it exits: a process
 * that reads it (through `/proc/self/fd/<fd>` opened for reading, handed over as one of its
 * fds) gets end-of-file only when the harness is gone, however it went: the kernel closes
 * the harness's fd on a kill -9 or an abort too. The path is removed at once. The fd is
 * close-on-exec (libuv opens every file so), so no target inherits it.
 */
export function openLifeline(): number | string {
  const dir = mkdtempSync(join(tmpdir(), 'wirecheck-lifeline-'));
  const path = join(dir, 'lifeline');
  try {
    const made = spawnSync('mkfifo', ['-m', '0600', path], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (made.status !== 0) return `mkfifo failed: ${made.stderr?.toString().trim() ?? made.error?.message}`;
    return openSync(path, 'r+');
  } catch (error) {
    return `cannot open a FIFO: ${(error as Error).message}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
